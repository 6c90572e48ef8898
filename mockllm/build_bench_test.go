package mockllm

import (
	"encoding/json"
	"testing"
)

// benchBody is a grounded request as the guard sends it: three section
// notes of a terms file (heading, numbered clauses) and a chat-typed
// question.
const benchBody = `{"model":"m","messages":[{"role":"system","content":"Answer from the notes.\n` +
	`[^1] (kind: library; address: Terms 2) 2. BOOKINGS AND PAYMENT. 2.1 Bookings can be made online, by phone or at the lesson desk. Phone lines open 9am to 6pm, Monday to Saturday. 2.2 Full payment is due on booking, except for Courses, where a deposit of 25% is taken. 2.4 Group lessons have a maximum of 8 Participants per instructor. Kids Club groups (ages 4 to 7) have a maximum of 6.\n` +
	`[^2] (kind: library; address: Terms 3) 3. AGES AND ABILITY. 3.1 The minimum age for ski lessons is 4 and for snowboard lessons 7. Participants under 16 must be accompanied by a Booker aged 18 or over. 3.2 Book the correct level. Level 1 is for complete beginners.\n` +
	`[^3] (kind: library; address: Terms 4) 4. EQUIPMENT. 4.1 Skis, boots, poles and helmets are included in the lesson price. 4.2 Gloves must be worn on the slope at all times."},` +
	`{"role":"user","content":"hiya my twins are 5 and going in the little kids group. how many kids are in each group"}]}`

// BenchmarkBuild is one grounded answer built (no stream, no server).
func BenchmarkBuild(b *testing.B) {
	cfg := DefaultConfig()
	var req chatRequest
	if err := json.Unmarshal([]byte(benchBody), &req); err != nil {
		b.Fatal(err)
	}
	g := generator{cfg: cfg}
	b.ReportAllocs()
	for b.Loop() {
		g.build(&req, []byte(benchBody), "x")
	}
}
