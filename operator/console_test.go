package operator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed: the console browser test needs it (Debian: apt-get install -y chromium; .ci/run installs it)")
	return ""
}

// runChromium loads url headless and returns the DOM after the page's
// scripts ran (dump) or writes a screenshot (shot != "").
func runChromium(t *testing.T, bin, url, shot string, height int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--mute-audio", "--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
		fmt.Sprintf("--window-size=1280,%d", height), "--virtual-time-budget=15000"}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	out, err := exec.CommandContext(ctx, bin, append(args, url)...).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// screenshotDir is where the console screenshots go: GUARD_CONSOLE_SCREENSHOTS
// (e.g. ../docs to refresh the README's pictures), else a temp dir.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("GUARD_CONSOLE_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

var (
	reRow     = regexp.MustCompile(`<tr data-id="(\d+)" data-decision="(\w+)"`)
	reCount   = regexp.MustCompile(`id="turn-count" data-count="(\d+)"`)
	reDetail  = regexp.MustCompile(`id="detail-summary" data-id="(\d+)" data-decision="(\w+)"`)
	reCand    = regexp.MustCompile(`<tr data-cand="([^"]+)"`)
	reWhatIf  = regexp.MustCompile(`id="whatif-summary" data-changed="(\d+)" data-turns="(\d+)"`)
	reTrans   = regexp.MustCompile(`<tr data-from="(\w+)" data-to="(\w+)" data-count="(\d+)"`)
	reThresh  = regexp.MustCompile(`data-threshold="(\w+)"`)
	reKindSel = regexp.MustCompile(`(?s)<select name="primary_kind"[^>]*>(.*?)</select>`)
	reOption  = regexp.MustCompile(`<option value="([^"]*)"`)
	reSuff    = regexp.MustCompile(`data-check="sufficient" data-before="(\d+)" data-after="(\d+)"`)
	reGapRows = regexp.MustCompile(`<tr data-decision="(refuse|fallback)" data-kind="(\w+)"><td>`)
	// a gap row's best coverage and its resolve button
	reGapCov = regexp.MustCompile(`<tr data-decision="(?:refuse|fallback)" data-kind="\w+"><td>[^<]*</td><td>\w+</td><td>.*?</td><td class="num">\d+</td><td>[^<]*</td><td>[^<]*</td><td class="num">([^<]*)</td>`)
	reGapBtn = regexp.MustCompile(`<button [^>]*data-gap-id="([0-9a-f]{16})" data-action="resolve"[^>]*>resolve</button>`)
)

// The console, loaded by headless Chromium from a running proxy after a
// scripted set of turns, shows every turn, filters by decision, renders a
// turn's detail (its candidates as the gate saw them) and the what-if
// result the API computes.
func TestConsoleInChromium(t *testing.T) {
	bin := chromium(t)
	ts := startGuard(t, nil)
	root := strings.TrimSuffix(ts.base, "/v1")
	seen := runScripted(t, ts)
	count := map[string]int{}
	low := 1.0
	for _, a := range seen {
		count[a.decision]++
		if a.decision == "refuse" {
			low = min(low, a.max)
		}
	}
	if count["refuse"] == 0 {
		t.Fatal("the scripted questions no longer produce a refusal")
	}
	dir := screenshotDir(t)

	// 1. The whole log: every turn listed, the thresholds drawn, the
	// refusals and fallbacks gathered.
	dom := runChromium(t, bin, root+"/console", "", 1600)
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the console did not finish loading:\n%s", dom)
	}
	if m := reCount.FindStringSubmatch(dom); m == nil || m[1] != strconv.Itoa(len(scripted)) {
		t.Errorf("turn count %v, want %d", m, len(scripted))
	}
	if rows := reRow.FindAllStringSubmatch(dom, -1); len(rows) != len(scripted) {
		t.Errorf("%d turn rows, want %d", len(rows), len(scripted))
	}
	var lines []string
	for _, m := range reThresh.FindAllStringSubmatch(dom, -1) {
		lines = append(lines, m[1])
	}
	if strings.Join(lines, " ") != "prefloor bail_out_below sufficient_max good_enough_max" {
		t.Errorf("thresholds drawn: %v", lines)
	}
	if gaps := reGapRows.FindAllStringSubmatch(dom, -1); len(gaps) != count["refuse"]+count["fallback"] {
		t.Errorf("%d gap rows, want one per refused or fallen-back question (%d)", len(gaps), count["refuse"]+count["fallback"])
	}
	// Each gap row shows its best coverage (the gap queue's coverage_max)
	// and resolve/dismiss buttons naming the entry.
	var gq struct {
		Data []struct {
			ID          string  `json:"id"`
			CoverageMax float64 `json:"coverage_max"`
		} `json:"data"`
	}
	operator(t, "GET", root+"/v1/guard/gaps", "", "", &gq)
	wantCov, wantIDs := map[string]bool{}, map[string]bool{}
	for _, g := range gq.Data {
		wantCov[strconv.FormatFloat(g.CoverageMax, 'f', 3, 64)] = true
		wantIDs[g.ID] = true
	}
	covs := reGapCov.FindAllStringSubmatch(dom, -1)
	if len(covs) != len(gq.Data) {
		t.Errorf("%d gap rows with a best coverage, want %d", len(covs), len(gq.Data))
	}
	for _, m := range covs {
		if m[1] == "" || !wantCov[m[1]] {
			t.Errorf("best coverage cell %q, want one of the queue's %v", m[1], wantCov)
		}
	}
	btns := reGapBtn.FindAllStringSubmatch(dom, -1)
	if len(btns) != len(gq.Data) {
		t.Errorf("%d resolve buttons, want one per gap row (%d)", len(btns), len(gq.Data))
	}
	for _, m := range btns {
		if !wantIDs[m[1]] {
			t.Errorf("resolve button for %s, not an entry of the queue", m[1])
		}
	}
	runChromium(t, bin, root+"/console", filepath.Join(dir, "console.png"), 1500)

	// 2. Filtered to refusals, one refused turn open, a what-if run.
	var tb turnsBody
	operator(t, "GET", root+"/v1/guard/turns?decision=refuse", "", "", &tb)
	id := tb.Turns[0].ID
	var detail struct {
		Turn struct {
			Cands []struct {
				ID string `json:"id"`
			} `json:"candidate_list"`
		} `json:"turn"`
	}
	operator(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, id), "", "", &detail)
	cut := strconv.FormatFloat(low+0.001, 'f', 4, 64)
	var want whatIfBody
	operator(t, "POST", root+"/v1/guard/whatif", "", `{"decision":"refuse","gate":{"bail_out_below":`+cut+`,"on_topic_sim":0}}`, &want)
	if want.Changed == 0 {
		t.Fatal("the what-if changes nothing: it would prove nothing")
	}
	url := fmt.Sprintf("%s/console#decision=refuse&turn=%d&whatif=bail_out_below:%s,on_topic_sim:0", root, id, cut)
	dom = runChromium(t, bin, url, "", 2600)
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the console did not finish loading:\n%s", dom)
	}
	rows := reRow.FindAllStringSubmatch(dom, -1)
	if len(rows) != count["refuse"] {
		t.Errorf("decision=refuse: %d rows, want %d", len(rows), count["refuse"])
	}
	for _, r := range rows {
		if r[2] != "refuse" {
			t.Errorf("decision=refuse lists turn %s decided %s", r[1], r[2])
		}
	}
	if m := reDetail.FindStringSubmatch(dom); m == nil || m[1] != strconv.FormatUint(id, 10) || m[2] != "refuse" {
		t.Errorf("detail shows %v, want turn %d (refuse)", m, id)
	}
	var cands []string
	for _, m := range reCand.FindAllStringSubmatch(dom, -1) {
		cands = append(cands, m[1])
	}
	var wantCands []string
	for _, c := range detail.Turn.Cands {
		wantCands = append(wantCands, c.ID)
	}
	if len(cands) == 0 || strings.Join(cands, " ") != strings.Join(wantCands, " ") {
		t.Errorf("detail candidates %v, want %v", cands, wantCands)
	}
	if m := reWhatIf.FindStringSubmatch(dom); m == nil || m[1] != strconv.Itoa(want.Changed) || m[2] != strconv.Itoa(want.Turns) {
		t.Errorf("what-if shows %v, want %d of %d changed", m, want.Changed, want.Turns)
	}
	if m := reTrans.FindStringSubmatch(dom); m == nil || m[1] != "refuse" || m[2] != "fallback" || m[3] != strconv.Itoa(want.Changed) {
		t.Errorf("what-if transition %v, want refuse -> fallback x %d", m, want.Changed)
	}
	runChromium(t, bin, url, filepath.Join(dir, "console-whatif.png"), 2600)

	// 3. The what-if moves primary_kind: the select offers the demo's
	// kinds and "(none: every chunk counts)", and the page shows what the
	// API computes for the kind chosen in the URL.
	var kw kindWhatIf
	operator(t, "POST", root+"/v1/guard/whatif", "", `{"gate":{"primary_kind":"verse","good_enough_max":1}}`, &kw)
	if kw.Changed == 0 {
		t.Fatal("primary_kind verse changes nothing: it would prove nothing")
	}
	kindURL := root + "/console#whatif=primary_kind:verse,good_enough_max:1"
	dom = runChromium(t, bin, kindURL, "", 2600)
	sel := reKindSel.FindStringSubmatch(dom)
	if sel == nil {
		t.Fatalf("no primary_kind select in the page:\n%s", dom)
	}
	var opts []string
	for _, m := range reOption.FindAllStringSubmatch(sel[1], -1) {
		opts = append(opts, m[1])
	}
	if got := strings.Join(opts, " "); got != " lecture library verse *" {
		t.Errorf("primary_kind options %q, want the configured, lecture library verse and none (*)", got)
	}
	if !strings.Contains(dom, `data-primary-kind="verse"`) {
		t.Errorf("the what-if result is not for primary_kind verse")
	}
	if m := reWhatIf.FindStringSubmatch(dom); m == nil || m[1] != strconv.Itoa(kw.Changed) || m[2] != strconv.Itoa(kw.Turns) {
		t.Errorf("primary_kind what-if shows %v, want %d of %d changed", m, kw.Changed, kw.Turns)
	}
	suff := kw.Checks["sufficient"]
	if m := reSuff.FindStringSubmatch(dom); m == nil || m[1] != strconv.Itoa(suff.Before) || m[2] != strconv.Itoa(suff.After) {
		t.Errorf("sufficient check shows %v, want %d -> %d", m, suff.Before, suff.After)
	}
	runChromium(t, bin, kindURL, filepath.Join(dir, "console-whatif-kind.png"), 2600)
}

// The console is embedded and served with a strict CSP; console.enabled:
// false turns it off (the API stays); the turn log's settings are
// restart-only.
func TestConsoleServing(t *testing.T) {
	ts := startServer(t, nil)
	root := strings.TrimSuffix(ts.base, "/v1")
	for path, ctype := range map[string]string{"/console": "text/html", "/console/": "text/html", "/console/app.js": "text/javascript", "/console/app.css": "text/css"} {
		resp, err := http.Get(root + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) || len(b) == 0 ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d %q CSP %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
		}
		if body := strings.ReplaceAll(string(b), "http://www.w3.org/2000/svg", ""); strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Errorf("%s refers to another origin (no CDN)", path)
		}
	}
	if code, _ := get(t, root+"/console/missing.js", ""); code != 404 {
		t.Errorf("GET /console/missing.js: %d, want 404", code)
	}
	off := startServer(t, func(c *testCfg) { c.Console.Enabled = false })
	offRoot := strings.TrimSuffix(off.base, "/v1")
	if code, _ := get(t, offRoot+"/console", ""); code != 404 {
		t.Errorf("console.enabled false: GET /console %d, want 404", code)
	}
	if code, _ := get(t, offRoot+"/v1/guard/turns", ""); code != 200 {
		t.Errorf("console.enabled false: GET /v1/guard/turns %d, want 200", code)
	}
	cfg := ts.srv.Config()
	cfg.TurnLog.Size = 10
	if err := ts.srv.Reload(cfg); err == nil || !strings.Contains(err.Error(), "turnlog") {
		t.Errorf("reload changing turnlog.size: %v, want refused naming turnlog", err)
	}
}
