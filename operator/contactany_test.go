package operator

import (
	"fmt"
	"slices"
	"testing"
)

// A contact question of no type ("how can i contact you") grounds on the
// passage that holds the shop's phone number and email, here among its
// opening hours and sharing no word with the question, not refused as a
// gap naming the refunds page, also where the corpus is larger than the
// pool; a corpus with no phone number, email or
// street address refuses it as on-topic, naming the closest topics, with
// no model call.
func TestContactAnyDetail(t *testing.T) {
	rows := []string{
		`{"tenant":"bike","id":"bike-hours","title":"hours.txt","text":"We are open Tuesday to Saturday 9am-5:30pm and closed on Sundays and Mondays. Phone 01632 960 471 or email hello@spokeandchain.co.uk."}`,
		`{"tenant":"bike","id":"bike-refund","title":"Can I get a refund?","text":"Unused parts may be returned within 30 days with the receipt for a full refund."}`,
		`{"tenant":"bike","id":"bike-service","title":"Servicing","text":"A basic service costs 45 pounds and includes brake and gear adjustment."}`,
		`{"tenant":"bike","id":"bike-hire","title":"Bike hire","text":"Hybrid bikes can be hired by the day for 25 pounds, helmet and lock included."}`,
		`{"tenant":"nodetail","id":"nodetail-refund","title":"Can I get a refund?","text":"Unused parts may be returned within 30 days with the receipt for a full refund."}`,
		`{"tenant":"nodetail","id":"nodetail-service","title":"Servicing","text":"A basic service costs 45 pounds and includes brake and gear adjustment."}`,
	}
	// the rest of the shop's pages, so that the pool (retrieve.top_k 16)
	// need not hold every passage: "how can I reach you" shares no word
	// with the hours passage, and finds it through Ask.Also
	items := []string{"road bike", "mountain bike", "gravel bike", "folding bike", "electric bike", "kids bike",
		"tandem", "cargo bike", "BMX", "touring bike", "hybrid bike", "fat bike"}
	pages := []string{
		"Our %s range starts at %d pounds and comes with a free first service after six weeks.",
		"We fit mudguards, racks and lights to any %s; fitting is free when you buy the parts from us (%d pounds and up).",
		"Test rides on a %s are free: bring photo ID and we keep it while you ride for up to %d minutes.",
		"Finance on a %s over %d pounds is available at zero percent over twelve months, subject to status.",
	}
	for i, it := range items {
		for j, pg := range pages {
			rows = append(rows, fmt.Sprintf(`{"tenant":"bike","id":"bike-%d-%d","title":%q,"text":%q}`, i, j,
				fmt.Sprintf("%s %d", it, j), fmt.Sprintf(pg, it, 100+i*37+j*11)))
		}
	}
	ts := startRowsProxy(t, rows)
	defer shutdown(t, ts.srv)

	for _, q := range []string{"how can i contact you", "how do i get in touch", "can i speak to someone", "how can I reach you"} {
		if r := chatTenant(t, ts.base, "bike", q); r.decision != "ground" || !slices.Contains(r.citations, "bike-hours") {
			t.Errorf("%q: decision %s citations %v (%q), want ground citing bike-hours", q, r.decision, r.citations, r.text)
		}
	}
	wantContactGap(t, ts, "nodetail", "how can i contact you")
}
