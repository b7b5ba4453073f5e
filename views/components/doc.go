// Package components holds the small templ components every module reuses:
// the CSRF field, the language switch, badges and icons. Later modules add
// theirs here (Pager, Avatar, EmptyState, Flash).
package components
