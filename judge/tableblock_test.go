package judge

import (
	"context"
	"testing"
)

// poolHours is a source holding a table as the index writes it: one row a
// line, cells joined by ", ", no closing punctuation.
var poolHours = Passage{N: 1, ID: "kb/pool", Title: "Swimming pool: Opening hours", Text: "The pool is heated to 29 degrees. Lane swimming needs no booking; lessons are booked at reception.\n\n" +
	"Day, Main pool, Learner pool\nMonday, 06:30 to 21:00, 09:00 to 17:00\nTuesday to Friday, 06:30 to 22:00, 09:00 to 19:00\n" +
	"Saturday, 08:00 to 18:00, closed\nSunday, 08:00 to 16:00, 10:00 to 14:00\n\nThe pool closes on 1 January."}

func TestTableBlockReportProbe(t *testing.T) {
	j := newJudge(t, nil)
	for _, answer := range []string{
		"Here are the hours:\n\nDay, Main pool, Learner pool\nMonday, 06:30 to 21:00, 09:00 to 17:00\nTuesday to Friday, 06:30 to 22:00, 09:00 to 19:00\nSaturday, 08:00 to 18:00, closed\nSunday, 08:00 to 16:00, 10:00 to 14:00 [1]",
		"Day, Main pool, Learner pool Monday, 06:30 to 21:00, 09:00 to 17:00 Tuesday to Friday, 06:30 to 22:00, 09:00 to 19:00 Saturday, 08:00 to 18:00, closed Sunday, 08:00 to 16:00, 10:00 to 14:00 [1]. The pool closes on 1 January [1].",
		"| Day | Main pool | Learner pool |\n|---|---|---|\n| Monday | 06:30 to 21:00 | 09:00 to 17:00 |\n| Saturday | 08:00 to 18:00 | closed |\n\n[1]",
		"The pool is open:\n- Monday, 06:30 to 21:00 [1]\n- Saturday, 08:00 to 18:00 [1]",
	} {
		r := j.Report(context.Background(), answer, map[int]Passage{1: poolHours}, nil, nil)
		t.Logf("answer %q", answer)
		for _, c := range r.Claims {
			t.Logf("  %q cites %v: %s %s uncited=%s", c.Text, c.Citations, c.Verdict, c.Reason, c.Uncited)
		}
	}
}
