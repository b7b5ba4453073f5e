package prompts

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	views "github.com/harmony/harmony/views/prompts"
)

// A {{variable}} placeholder: up to maxVariable characters between double
// braces. static/js/prompts.js parses the same way, so the live preview
// and the server's filled text agree.
const maxVariable = 64

var placeholderPattern = regexp.MustCompile(`\{\{([^{}]{1,64})\}\}`)

// variableField prefixes a variable's query parameter, so no variable
// name can collide with another parameter.
const variableField = "v."

// MaxValue bounds one variable's value and maxFilled the text filled
// with them: a prompt may repeat a placeholder hundreds of times, so
// without them one short link to a public page would have the server
// build a page of gigabytes.
const (
	MaxValue  = 500
	maxFilled = 4 * MaxTextLength
)

// errFill refuses values past MaxValue, or a filled text past maxFilled.
var errFill = errors.New("prompts: variable values too long")

// placeholderName is the variable a placeholder match names, trimmed, or
// "" when it is not a variable: names are letters, digits, '_', '-' and
// spaces, in any script.
func placeholderName(match string) string {
	name := strings.TrimSpace(match[2 : len(match)-2])
	if name == "" || utf8.RuneCountInString(name) > maxVariable {
		return ""
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' && r != '-' && r != ' ' {
			return ""
		}
	}
	return name
}

// variablesOf returns text's variable names, each once, in order of first
// appearance.
func variablesOf(text string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range placeholderPattern.FindAllString(text, -1) {
		if name := placeholderName(m); name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// fillVariables replaces every placeholder whose variable has a non-empty
// value; the others stay as written.
func fillVariables(text string, values map[string]string) string {
	return placeholderPattern.ReplaceAllStringFunc(text, func(m string) string {
		if v := values[placeholderName(m)]; v != "" {
			return v
		}
		return m
	})
}

// fillForm builds the page's variable inputs from the query (v.name=…)
// and the text filled with them. A value longer than MaxValue, or a
// filled text longer than maxFilled, is errFill.
func fillForm(text string, query url.Values) ([]views.Variable, string, error) {
	names := variablesOf(text)
	if len(names) == 0 {
		return nil, "", nil
	}
	vars := make([]views.Variable, len(names))
	values := make(map[string]string, len(names))
	for i, name := range names {
		field := variableField + name
		v := query.Get(field)
		if len(v) > utf8.UTFMax*MaxValue || utf8.RuneCountInString(v) > MaxValue {
			return nil, "", errFill
		}
		vars[i] = views.Variable{Name: name, Value: v, Field: field, ID: "var-" + strconv.Itoa(i), Max: MaxValue}
		values[name] = v
	}
	filled := fillVariables(text, values)
	if utf8.RuneCountInString(filled) > maxFilled {
		return nil, "", errFill
	}
	return vars, filled, nil
}
