package gate

import "testing"

// contactAsks are ways a customer asks a service for its own phone number,
// email address, street address or opening hours, written before any trial
// question was read: with and without "you", terse and chatty.
var contactAsks = []struct {
	q    string
	want string // Ask.Type
}{
	// from dev misses (operator trials 9-27, read after their runs)
	{"thanks. is there an email i can send a question to", "email"},
	{"what email can i write to about something else?", "email"},
	{"hi where abouts are u?", "address"},
	{"whereabouts are you", "address"},
	{"hi whats the secretarys number pls", "phone"},
	{"are you open in november", "hours"},
	{"phone number", "phone"},
	{"phone number?", "phone"},
	{"telephone?", "phone"},
	{"what's the number for the front desk", "phone"},
	{"whats the best number to call", "phone"},
	{"is there a number I can ring", "phone"},
	{"can I ring you", "phone"},
	{"do you have a telephone number", "phone"},
	{"what number do I call to book", "phone"},
	{"reception phone number please", "phone"},
	{"email?", "email"},
	{"email address please", "email"},
	{"what's the email", "email"},
	{"can I email you", "email"},
	{"whats the email for general enquiries", "email"},
	{"how do i email the office", "email"},
	{"address please", "address"},
	{"address?", "address"},
	{"what's the address", "address"},
	{"where are you located", "address"},
	{"where can I find you", "address"},
	{"where is the shop", "address"},
	{"where's the studio", "address"},
	{"where is your nearest shop", "address"},
	{"how do I find you", "address"},
	{"whats your postcode", "address"},
	{"postcode for the sat nav?", "address"},
	{"where exactly are you based", "address"},
	{"what is the school's address", "address"},
	{"opening times?", "hours"},
	{"opening hours", "hours"},
	{"when do you shut", "hours"},
	{"what time do you open on sunday", "hours"},
	{"are you open today", "hours"},
	{"are you open on bank holidays", "hours"},
	{"what time does the shop close", "hours"},
	{"what time do you close on saturdays?", "hours"},
	{"how late are you open", "hours"},
	{"when are you closed", "hours"},
	{"is the office open at the weekend", "hours"},
	{"what are your hours", "hours"},
	{"open on sundays?", "hours"},
	{"hours?", "hours"},
	{"till what time is reception open", "hours"},
	{"when does the front desk open", "hours"},
	{"how can i contact you", ""},
	{"contact details?", ""},
	{"how do I get in touch", ""},
	{"can i speak to someone", ""},
	{"Can I talk to a person please?", ""},
}

// notContactAsks name a phone number, an address, an email or a time
// without asking for the service's own.
var notContactAsks = []string{
	"do you deliver to my address",
	"can i speak to someone about a refund",
	"can I change my email on my account",
	"what time is the concert",
	"how do I update my phone number",
	"What is the phone number of the lost property office?",
	"What's the email address for complaints?",
	"do you sell phone cases?",
	"what time does the match start",
	"when does the course open for enrolment",
	"is the car park open at night",
	"what's the address format for international orders",
	"how do I add a new address to my profile",
	"when is the next open day",
	"what time does the last train leave",
	"can I pay by phone",
	"do you ship to my postcode",
	"is my postcode in your delivery area",
	"where do I enter my email address",
	"how many hours of tuition do I get",
	"how many hours a week should I practise",
	"when does the sale end",
	"is the offer still open",
	"what number should I put on the form",
	"who answers the phone",
	"how do I close my account",
	"can you call me back",
	"do you have an email newsletter",
	"can I email my homework to the teacher",
	"where is the nearest station",
	"when does the pool close for cleaning",
	"what time is check-out",
	"are you open to suggestions",
	"do you open parcels before delivery",
	"do you close accounts that are not used",
	"how do I verify my email",
	"why do you need my phone number",
	"can I practise my times tables with you",
	"what are the hours of the exam",
	"where will the exam be held",
	"when does the library open its new wing",
	"how much does your phone insurance cost?",
	"what is the address of the venue for the concert",
	"is the email I got from you genuine",
	"when do the dahlias go out",
	"where is your returns policy",
	"what's the latest I can drop off before you close",
	"what questions can I ask about the course?",
	"when does the manager start in may",
	"do i have to pay a deposit when i ring u out",
	"how much is it to call you out at night?",
}

func TestAskOfContactPhrasings(t *testing.T) {
	for _, tt := range contactAsks {
		if got := AskOf(tt.q); !got.Contact || got.Type != tt.want {
			t.Errorf("AskOf(%q) = %+v, want a contact ask of type %q", tt.q, got, tt.want)
		}
	}
	if len(contactAsks) < 40 {
		t.Errorf("%d contact phrasings, want at least 40", len(contactAsks))
	}
}

func TestAskOfNotContact(t *testing.T) {
	for _, q := range notContactAsks {
		if got := AskOf(q); got.Contact {
			t.Errorf("AskOf(%q) = %+v, want no contact ask", q, got)
		}
	}
	if len(notContactAsks) < 40 {
		t.Errorf("%d non-contact questions, want at least 40", len(notContactAsks))
	}
}

func BenchmarkAskOf(b *testing.B) {
	qs := []string{"how many lessons are there in a term", "what time do you shut on a sunday", "opening times?",
		"can I change my email on my account"}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			AskOf(q)
		}
	}
}
