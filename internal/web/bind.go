package web

import (
	"fmt"
	"reflect"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
)

// BindForm fills the fields of the struct *dst that carry a `form:"name"`
// tag from the request's form (a POST's body, a GET's query): a string
// takes the value as sent, a []string every value, and a bool whether the
// box was ticked (any value but "", "0", "false" and "off"). An untagged
// struct field is filled the same way, so an input may nest its parts.
// Nothing is judged here: the service's rules check the values, and a
// field the form lacks keeps its value ("" in a new struct). A body that
// cannot be read is a 400.
func BindForm(c echo.Context, dst any) error {
	form, err := c.FormParams()
	if err != nil {
		return BadRequest("", fmt.Errorf("web: form: %w", err))
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("web: BindForm wants a pointer to a struct, got %T", dst))
	}
	bindFields(v.Elem(), form)
	return nil
}

func bindFields(v reflect.Value, form map[string][]string) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		name, tagged := f.Tag.Lookup("form")
		switch {
		case !f.IsExported():
		case !tagged && f.Type.Kind() == reflect.Struct:
			bindFields(fv, form)
		case !tagged:
		case f.Type.Kind() == reflect.String:
			if vs := form[name]; len(vs) > 0 {
				fv.SetString(vs[0])
			}
		case f.Type.Kind() == reflect.Bool:
			fv.SetBool(ticked(form[name]))
		case f.Type == reflect.TypeFor[[]string]():
			fv.Set(reflect.ValueOf(append([]string(nil), form[name]...)))
		default:
			panic(fmt.Sprintf("web: BindForm: %s.%s is a %s", t, f.Name, f.Type))
		}
	}
}

// ticked reports whether a checkbox was ticked: an unticked one sends
// nothing.
func ticked(vs []string) bool {
	if len(vs) == 0 {
		return false
	}
	switch vs[0] {
	case "", "0", "false", "off":
		return false
	}
	return true
}

// FormChoice reads field as one of choices (a vote, a direction); any
// other value is a 400 with the message of key bad, and nothing happens.
func FormChoice[T any](c echo.Context, field string, choices map[string]T, bad string) (T, error) {
	v := c.FormValue(field)
	choice, ok := choices[v]
	if !ok {
		return choice, BadRequest(i18n.T(c.Request().Context(), bad), fmt.Errorf("web: %s=%q is not a choice", field, v))
	}
	return choice, nil
}
