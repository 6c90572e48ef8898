package remoteplan_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/looptest"
	"github.com/answer-guard/guard/internal/remoteplan"
	"github.com/answer-guard/guard/mockllm"
)

// replyServer is a scripted OpenAI-compatible chat server on loopback
// that answers every request with reply.
func replyServer(t *testing.T, reply string) string {
	url, _ := looptest.ChatServer(t, reply)
	return url
}

var notes = []gate.Note{
	{N: 1, Title: "Opening hours", Text: "We are open Tuesday to Saturday, 9am to 5:30pm."},
	{N: 2, Title: "Puncture repair", Text: "Puncture repair costs 8 pounds per wheel, including a new inner tube."},
	{N: 3, Title: "Bike hire", Text: "Hire bikes cost 20 pounds a day."},
}

func cfg(url string) gate.PlannerConfig {
	return gate.PlannerConfig{Mode: "remote", BaseURL: url, Model: "planner", Timeout: 2 * time.Second}
}

// The reply's numbers become 0-based note indexes, in the reply's order,
// without repeats or numbers out of range; [] is an empty outline; a reply
// naming no valid note is an error (the caller falls back).
func TestOutlineParsesReply(t *testing.T) {
	for _, c := range []struct {
		reply   string
		want    []int
		wantErr bool
	}{
		{"[2, 1]", []int{1, 0}, false},
		{"[3, 3, 9, 0]", []int{2}, false},
		{" [] ", []int{}, false},
		{"Notes 2 and 3.", []int{1, 2}, false},
		{"none of them", nil, true},
		{"[7]", nil, true},
	} {
		p := remoteplan.New(cfg(replyServer(t, c.reply)))
		got, err := p.Outline(context.Background(), "how much is a puncture repair?", notes)
		p.Close()
		if (err != nil) != c.wantErr || !slices.Equal(got, c.want) {
			t.Errorf("reply %q: got %v, %v; want %v (error %v)", c.reply, got, err, c.want, c.wantErr)
		}
	}
}

// A planner that is down is an error, not an empty outline.
func TestOutlineDownIsError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := remoteplan.New(cfg("http://" + addr + "/v1"))
	defer p.Close()
	if got, err := p.Outline(context.Background(), "q?", notes); err == nil {
		t.Errorf("got %v, nil; want an error", got)
	}
}

// The simulated upstream answers the planner's prompt through real HTTP:
// the notes sharing the question's words, most first; [] when none does.
func TestSimulatedUpstreamPlans(t *testing.T) {
	mc := mockllm.DefaultConfig()
	mc.Pace = 0
	mock, err := mockllm.Start(mc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	p := remoteplan.New(cfg(mock.BaseURL()))
	defer p.Close()
	for _, c := range []struct {
		q    string
		want []int
	}{
		{"How much is a puncture repair?", []int{1}},
		{"Can I hire bikes on Saturday?", []int{2, 0}},
		{"What is the water temperature in the pool?", []int{}},
	} {
		got, err := p.Outline(context.Background(), c.q, notes)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, %v; want %v", c.q, got, err, c.want)
		}
	}
}

// base_url "upstream" takes the answering upstream's URL, and its key env
// unless the planner names one; empty upstream is an error.
func TestResolve(t *testing.T) {
	c := cfg(gate.PlannerUpstream)
	got, err := remoteplan.Resolve(c, "http://up/v1", "UP_KEY")
	if err != nil || got.BaseURL != "http://up/v1" || got.APIKeyEnv != "UP_KEY" || got.Model != "planner" {
		t.Errorf("Resolve = %+v, %v", got, err)
	}
	c.APIKeyEnv = "PLAN_KEY"
	if got, _ := remoteplan.Resolve(c, "http://up/v1", "UP_KEY"); got.APIKeyEnv != "PLAN_KEY" {
		t.Errorf("key env %q, want PLAN_KEY", got.APIKeyEnv)
	}
	if _, err := remoteplan.Resolve(c, "", ""); err == nil {
		t.Error("empty upstream: no error")
	}
	if got, _ := remoteplan.Resolve(cfg("http://p/v1"), "http://up/v1", ""); got.BaseURL != "http://p/v1" {
		t.Errorf("a URL was replaced: %q", got.BaseURL)
	}
}
