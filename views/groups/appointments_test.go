package groups

import "testing"

// Cancel on the appointment form goes back to what it edits: the
// appointment, the very occurrence of a series, or the group for a new
// one.
func TestAppointmentFormCancelsToWhatItEdits(t *testing.T) {
	for _, c := range []struct {
		p    AppointmentFormProps
		want string
	}{
		{AppointmentFormProps{GroupURL: "/groups/g1", Action: "/groups/g1/appointments"}, "/groups/g1"},
		{AppointmentFormProps{GroupURL: "/groups/g1", Action: "/groups/g1/appointments/a1/edit"}, "/groups/g1/appointments/a1"},
		{AppointmentFormProps{GroupURL: "/groups/g1", Action: "/groups/g1/appointments/a1/edit", At: "2030-05-17T09:30"}, "/groups/g1/appointments/a1?at=2030-05-17T09%3A30"},
	} {
		if got := c.p.cancelURL(); got != c.want {
			t.Errorf("%s at %q: cancel to %q, want %q", c.p.Action, c.p.At, got, c.want)
		}
	}
}
