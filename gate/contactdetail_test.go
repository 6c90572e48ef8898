package gate

import (
	"strings"
	"testing"
)

func TestHasStreetAddress(t *testing.T) {
	for text, want := range map[string]bool{
		"Find us at 12 High Street, Bristol.":                      true,
		"The studio is at 221B Baker Street.":                      true,
		"1600 Pennsylvania Avenue NW, Washington":                  true,
		"Our office: 4/21 George St, Sydney":                       true,
		"We are at 45 Mill Lane.":                                  true,
		"Visit 8 rue de Rivoli, Paris.":                            true,
		"Hauptstraße 5, Berlin":                                    true,
		"Kerkstraat 112 in the centre":                             true,
		"Rua Augusta 24, Lisboa":                                   true,
		"Calle Mayor, 5":                                           true,
		"Via Roma 10, Torino":                                      true,
		"Post: Music School, Bristol BS1 5TR":                      true,
		"London SW1A 1AA":                                          true,
		"Market Street, Bristol BS1 5TR":                           true,
		"San Francisco, CA 94105":                                  true,
		"Ottawa, ON K1A 0B1":                                       true,
		"Sydney NSW 2000":                                          true,
		"Damrak 1, 1012 LG Amsterdam":                              true,
		"Avenida da Liberdade, 1250-096 Lisboa":                    true,
		"Hauptplatz, 10115 Berlin":                                 true,
		"Tailors at 12 Savile Row, London.":                        true,
		"Find us at 3 Brook Green.":                                true,
		"The studio, 14 Chapel Hill":                               true,
		"We moved to 5 Riverside Walk in June.":                    true,
		"Unit 2, 8 Foundry Yard, Leeds":                            true,
		"17 Elm Grove":                                             true,
		"Offices at 22 Summer Rise near the station":               true,
		"10 Bay View Lane":                                         true,
		"4 Regent's Park Road":                                     true,
		"at 1 Oxford Circus W1":                                    true,
		"9 Castle Wynd, Edinburgh":                                 true,
		"31 Meadow Vale":                                           true,
		"40 Victoria Embankment, London":                           true,
		"Sit in row 12 for the best view.":                         false,
		"We sat in the front row.":                                 false,
		"There are 3 Park rangers on duty.":                        false,
		"Visit 3 Hyde Park venues this summer.":                    false,
		"Sleeps 6 People. Park for free outside.":                  false,
		"The 2 Green lines run every 10 minutes.":                  false,
		"Row 12, seat 4":                                           false,
		"A lesson costs £12 and a block of ten £100.":              false,
		"Prices from $25 Road tax extra":                           false,
		"The concert is on Saturday 14 June at 7:30pm.":            false,
		"Term starts 3 September 2026.":                            false,
		"Ring us on 01632 960 123 or +44 20 7946 0958.":            false,
		"Call (555) 123-4567 ext. 12.":                             false,
		"Upgrade to version 2.3.1 before 10 March.":                false,
		"Python 3.12 and Go 1.22 are supported.":                   false,
		"We open at 4PM on weekdays.":                              false,
		"Order 12345 shipped on 2 May.":                            false,
		"Grade 5 Theory is taken in Year 7.":                       false,
		"Our shop is on the high street near the station.":         false,
		"There were 12000 visitors last year, up from 9000 People": false,
	} {
		if got := hasStreetAddress(text); got != want {
			t.Errorf("hasStreetAddress(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestHasOpeningHours(t *testing.T) {
	for text, want := range map[string]bool{
		"Open Monday to Saturday, 9am to 5pm.":          true,
		"Mon–Fri: 09:00–17:30":                          true,
		"Saturdays 10am-4pm, Sundays closed":            true,
		"We are open 9am-5pm weekdays.":                 true,
		"Opening hours: 08:30-18:00":                    true,
		"The shop closes at 5.30pm.":                    true,
		"Reception opens at 8am.":                       true,
		"We are closed on Sundays and bank holidays.":   true,
		"Closed bank holidays.":                         true,
		"Open daily.":                                   true,
		"Sundays from 10am":                             true,
		"Mon-Fri 9am-5pm":                               true,
		"Saturday 09:00-17:30":                          true,
		"Wednesday and Thursday 10:00-16:00":            true,
		"Closed on Wednesdays.":                         true,
		"Weekdays 9.00 to 17.30":                        true,
		"The concert is on Saturday 14 June at 7:30pm.": false,
		"Doors open at 7pm; the show runs two hours.":   false,
		"Tickets cost £9-£12.":                          false,
		"Prices: £5 to £10 per lesson.":                 false,
		"Term runs 12-14 June 2026.":                    false,
		"Ring us on 01632 960 123.":                     false,
		"Requires version 10.15 to 10.20 of macOS.":     false,
		"Lessons last 2 hours and start at 10am.":       false,
		"The exam takes place on 3 March.":              false,
		"Saturday 14 June: summer fair":                 false,
		"Our shop is close to the station.":             false,
		"Pay by phone any day of the week.":             false,
		"Upgrade to 2.3.1 on Monday":                    false,
		"Version 4.10-4.12 ships weekly":                false,
	} {
		if got := hasOpeningHours(text); got != want {
			t.Errorf("hasOpeningHours(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestHasPhoneNumber(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		// the shapes phones are written in
		{"Ring us on +44 20 7946 0958.", true},
		{"Our number is 020 7946 0958.", true},
		{"Call (555) 123-4567 ext. 12.", true},
		{"555-123-4567", true},
		{"Freephone 0800 123 456", true},
		{"Paris office: +33 1 23 45 67 89", true},
		{"1-800-555-0199 (toll free)", true},
		{"Contact: 01632 960 123 or email us.", true},
		{"+44 (0)161 496 0000", true},
		{"(02) 9876 5432", true},
		{"1300 123 456", true},
		{"555.123.4567", true},
		{"+441614960000", true},
		{"Tel. 030 / 123 456 78", true},
		{"030/12345678", true},
		{"0161-496-0000", true},
		{"+1-555-123-4567", true},
		{"Phone: +44 (0) 20 7946 0958", true},
		{"Call the workshop on 01632 960123.", true},
		{"Call 0161 496 0000 24 hours a day.", true},
		{"0161 496 0000 24 hours a day", true},
		// a helpline named after "customer" (a reference word alone:
		// "customer number"), operator trial 17
		{"Customer care: 0113 496 0728, Monday to Friday 9am to 5pm", true},
		{"Customer services 0800 123 4567", true},
		{"Customer support: 0161 496 0000", true},
		{"Customer number 01234567", false},
		{"Customer no. 0161 4960000", false},
		{"Ring 0161 496 0000 Ms Patel.", true},
		// a bare run, or groups of no shape, beside a phone word
		{"Tel: 01614960000", true},
		{"Tel. no. 01614960000", true},
		{"WhatsApp 07700900123", true},
		{"Text 07700900123 to book.", true},
		{"Call us on 496 0000.", true},
		{"Fax 12345678", true},
		{"mobile: 98765 43210", true},
		// order, booking and policy references; codes
		{"Ref 12345678", false},
		{"Your booking reference is 12345678.", false},
		{"Order 0123 456 789 shipped.", false},
		{"Policy number 01234567", false},
		{"Call us quoting your order number 12345678.", false},
		{"Registered charity no. 1123456", false},
		{"Company number 01234567", false},
		{"ISBN 978-0-14-118776-1", false},
		{"978-0-14-118776-1", false},
		{"ISBN 0-14-118776-1", false},
		{"Item AB-1234567 is out of stock.", false},
		{"Serial XK12345678", false},
		{"#12345678", false},
		// money and quantities
		{"£1,250,000", false},
		{"The house sold for 1,250,000 dollars.", false},
		{"£1250000", false},
		{"1250000p", false},
		{"It costs 1250000 pence.", false},
		{"1 250 000 €", false},
		{"€ 1 250 000", false},
		{"A file of 12345678 bytes.", false},
		{"We had 1234567 visitors.", false},
		{"Over 1234567 %", false},
		// bank details
		{"sort code 12-34-56 account 12345678", false},
		{"Sort code 12-34-56, account no. 01234567", false},
		// dates, times, years, postcodes, versions
		{"2024-11-28", false},
		{"28/11/2024", false},
		{"28.11.2024", false},
		{"01-02-2024", false},
		{"2019-2024", false},
		{"Seasons 2019 2020 2021", false},
		{"Open 09.00-17.30 weekdays.", false},
		{"Call between 09.00-17.30.", false},
		{"10:30:45", false},
		{"London SW1A 1AA", false},
		{"San Francisco, CA 94105-1234", false},
		{"Upgrade to v1.2.3456789.", false},
		{"version 1.2.3456789", false},
		{"Open from 7 am to 10 pm.", false},
		{"Grades 1 2 3 4 5 6 7", false},
		{"", false},
	} {
		if got := hasPhoneNumber(c.text); got != c.want {
			t.Errorf("hasPhoneNumber(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// benchPassage is a passage of ordinary length with neither an address nor
// opening hours: the detectors' slowest case, every pattern tried.
const benchPassage = `Lessons run for 30, 45 or 60 minutes and cost from £18. Pupils may take graded exams from Grade 1
to Grade 8; we enter candidates for the spring, summer and autumn sessions. If you must cancel a lesson, tell your
teacher at least 24 hours before it starts, or the lesson is charged in full. Instruments can be hired for £10 a
month, and the first month is free for new pupils under 12. Group theory classes meet in Room 4 every other week.`

func BenchmarkNewPassageTerms(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewPassageTerms(strings.Fields, "Lessons and fees", benchPassage)
	}
}
