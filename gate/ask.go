package gate

import "strings"

// Ask is what a question's wording asks for (AskOf): an input of Decide,
// kept in the turn log so that the what-if replays the decision. The zero
// Ask (a turn logged before it was kept) decides as the thresholds alone
// do.
type Ask struct {
	// Type is the answer type asked for: "phone", "email", "address"
	// (a street address or postcode), "hours" (opening hours), "time",
	// "count", "cost", "duration", "age", "speed", "distance", "person",
	// "place", or "" for none. "address" and "hours" are asked only by a
	// contact question; "where is ..." and "when ..." otherwise ask for a
	// place and a time.
	Type string `json:"type,omitempty"`
	// Contact: the question asks for the service's own contact details,
	// its phone number, email address, address or opening hours ("whats
	// your phone number", "what time do you close on sundays?"). Such a
	// question is on the corpus's topic by its wording: no passage need
	// share a word with it, and general knowledge cannot answer it. Decide
	// grounds it on the passages that hold the asked phone number, email
	// address, street address or opening hours, and refuses it as a gap of
	// the corpus (naming the closest topics) where none does; "how can i
	// contact you" (no type) grounds on the passages that hold a phone
	// number, an email address or a street address, and where none does
	// is refused so only where the thresholds would bail out.
	Contact bool `json:"contact,omitempty"`
	// Task: the message asks the assistant to make something ("write me a
	// poem", "tell me a joke", "translate ... into German", "a recipe
	// for ..."), not about the service (taskRequest). Decide handles it
	// as off-topic whatever the passages' relevance.
	Task bool `json:"task,omitempty"`
	// Aside: the message says it has nothing to do with the service
	// ("unrelated, but ...", "random q but ...": asideMark). Decide
	// handles it as off-topic whatever the passages' relevance, as a Task.
	Aside bool `json:"aside,omitempty"`
	// Advice: the message asks for general advice in the trade ("what's
	// the best way to get red wine out of a carpet?", "any tips for
	// packing glasses?": adviceRequest), not about the service. Decide
	// handles it as off-topic whatever the passages' relevance, as a Task.
	Advice bool `json:"advice,omitempty"`
	// You: the message speaks to the service ("you", "your", "u", "ur").
	You bool `json:"you,omitempty"`
	// General is the question's general-question score (retrieve's
	// Result.General: how much nearer, by the sentence encoder, it is to
	// general-knowledge questions than to customers' questions to a
	// service). Above general_above, Decide lowers every passage's
	// relevance on a corpus that keeps to one topic (Config.GeneralAbove).
	// 0 when the encoder is off.
	General float64 `json:"general,omitempty"`
	// Names is the question's first word that its corpus uses and that is
	// rare in English (retrieve's Result.Names): it names something of the
	// corpus's own ("Who founded Lanternfish?"), so the question is never
	// taken for a general-knowledge one, whatever General says.
	Names string `json:"names,omitempty"`
	// Other is the name of another business the question asks about
	// (retrieve's Result.Other: "how much does Specsavers charge?", "my
	// Sky TV subscription"), a word its corpus never uses. With
	// other_business on, Decide handles the question as off-topic on a
	// corpus that keeps to one topic.
	Other string `json:"other,omitempty"`
}

// contactMeansQuery is what retrieve searches for besides a contact
// question of no type: the words a passage that gives a way to reach the
// service uses ("how can I reach you" shares none of them).
const contactMeansQuery = "phone number, email address, contact us"

// Also are the texts retrieve should search for besides the question
// (retrieve.Query.Also), so that the pool holds the passages Decide
// grounds on: for a contact question of no type, the words of a phone
// number, email or address (a typed one names its own); nil otherwise.
func (a Ask) Also() []string {
	if a.Contact && a.Type == "" {
		return []string{contactMeansQuery}
	}
	return nil
}

// typeNames name the answer types in Ask.Type.
var typeNames = [numTypes]string{typeNone: "", typeTime: "time", typeCount: "count", typeCost: "cost",
	typeDuration: "duration", typeAge: "age", typeSpeed: "speed", typeDistance: "distance", typePerson: "person",
	typePlace: "place", typePhone: "phone", typeEmail: "email", typeAddress: "address", typeHours: "hours"}

// strict reports an asked type whose absence from a passage rules the
// passage out as an answer (strictType).
func (a Ask) strict() bool {
	for t, n := range typeNames {
		if n == a.Type && n != "" {
			return strictType(answerType(t))
		}
	}
	return false
}

// AskOf reads what q asks for off its wording: generic English question
// forms, not any corpus's vocabulary.
func AskOf(q string) Ask {
	var pq Question
	pq.AskFrom(q)
	return pq.Ask()
}

// AlsoOf is AskOf(q).Also() without reading the rest of what q asks:
// retrieval's extra texts depend on the answer type and the contact form
// alone, and the gate reads the rest once, in PrepareQuestion.
func AlsoOf(q string) []string {
	t, contact := questionType(q)
	return Ask{Type: typeNames[t], Contact: contact}.Also()
}

// Ask is what the prepared question asks for (AskOf of its text, or of
// the text given to AskFrom).
func (q *Question) Ask() Ask {
	return Ask{Type: typeNames[q.want], Contact: q.contact, Task: q.task, Aside: q.aside, Advice: q.advice, You: q.you, General: q.general, Names: q.names, Other: q.other}
}

// SetGeneral sets the question's general-question score and the corpus's
// own word it names (Ask.General, Ask.Names).
func (q *Question) SetGeneral(g float64, names string) { q.general, q.names = g, names }

// SetOther sets the other business the question asks about (Ask.Other).
func (q *Question) SetOther(name string) { q.other = name }

// AskFrom makes q ask what text asks for (AskOf(text)) instead of what its
// own text does: a chat's follow-up is prepared from the previous user
// message and the last one together (retrieve.FollowupQuery), but asks
// only what the last one asks ("how much is it for kids?" after "what
// time do you open?" asks for a cost, not a time).
func (q *Question) AskFrom(text string) {
	q.want, q.contact = questionType(text)
	q.task = !q.contact && taskRequest(text)
	q.aside = !q.contact && asideMark(text)
	you := speaksToService(text)
	q.advice = !q.contact && !you && adviceForm(text)
	q.you = !q.contact && you
}

// questionType is the answer type q asks for and whether it asks for the
// service's own contact details; a contact question's type is the
// contact detail's ("what's your email" asks for an email address).
func questionType(q string) (answerType, bool) {
	if t, ok := contactType(q); ok {
		if t == typeNone {
			t = askedType(q) // "can i contact you about a fee"
		}
		return t, true
	}
	return askedType(q), false
}

// contactType reports whether q asks for the service's own contact
// details (its phone number, email, street address or opening hours) and
// which type of answer that is (typeNone for "how can i contact you").
// Two forms read as contact: a phrase that names the service as "you" or
// "your" ("where can i find you", "when do you shut"), and a question made
// only of contact words, the service's own nouns ("the front desk") and
// filler, where the service is implied ("opening times?", "what's the
// number for the front desk", "address please"). A word that turns the
// question to the customer's own details or to a task on them ("my",
// "change", "deliver") rules both out: "do you deliver to my address".
func contactType(q string) (answerType, bool) {
	lower := strings.ToLower(q)
	if !mayAskContact(lower) { // most questions name no contact word: no copy is made for them
		return typeNone, false
	}
	s := " " + strings.Map(contactRune, lower) + " "
	words := strings.Fields(s)
	mine := false
	for i, w := range words {
		w = strings.TrimSuffix(w, "'s")
		w = strings.Trim(w, "'")
		words[i] = w
		if contactVerbs[w] {
			return typeNone, false
		}
		mine = mine || w == "my" || w == "mine"
	}
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	// after a phrase, only contact words and filler: "do you open on
	// sundays", not "do you open parcels"
	tail := func(ws ...string) bool {
		for _, w := range ws {
			if i := strings.Index(s, w); i >= 0 && contactWords(strings.Fields(s[i+len(w):])) {
				return true
			}
		}
		return false
	}
	if has(" you out ", " u out ") {
		// "when I ring you out", "how much to call u out": a call-out, not
		// a way to reach the service (operator trial 30's locksmith)
		return typeNone, false
	}
	switch {
	case has(" your number", " your mobile number", " ur number", " call you ",
		" ring you ", " phone you ", " call u ", " ring u ", " text you "):
		return typePhone, true
	case has(" your email", " your e-mail", " ur email", " email you ", " e-mail you ", " email u "):
		return typeEmail, true
	case has(" your address", " your postcode", " your zip", " your location", " where are you ", " where r u ",
		" where are u ", " where can i find you ", " how do i find you ", " how to find you ", " how do i get to you ",
		" where you are ", " where are you based", " where are you located"),
		tail(" where is your ", " where's your ", " wheres your "):
		return typeAddress, true
	case has(" your opening", " your closing", " your business hours"),
		tail(" your hours", " your times", " when do you open", " when do you close", " when do you shut",
			" what time do you open", " what time do you close", " what time do you shut", " when are you open",
			" when are you closed", " are you open", " are you closed", " do you open", " do you close", " do you shut",
			" what time are you open", " how late are you open", " how late do you", " till what time are you",
			" when do u open", " when do u close", " what time you open", " what time you close", " what time you shut"):
		return typeHours, true
	case has(" contact you", " get in touch", " reach you", " contact u ", " your contact details"),
		tail(" speak to someone", " talk to someone", " speak to somebody", " talk to somebody", " speak to a person",
			" talk to a person", " speak to a human", " talk to a human"):
		return typeNone, true
	case !mine && has("phone number", "telephone number", "contact number") && has(" you ", " your ", " u ", " ur "):
		return typePhone, true
	case !mine && has("email address", "e-mail address") && has(" you ", " your ", " u ", " ur "):
		return typeEmail, true
	}
	if mine || !contactWords(words) {
		return typeNone, false
	}
	var t answerType
	contact := false
	for _, w := range words {
		k, ok := contactKeys[w]
		if !ok {
			continue
		}
		contact = true
		if t == typeNone || contactRank(k) < contactRank(t) {
			t = k
		}
	}
	return t, contact
}

// mayAskContact reports whether lower holds a word without which no
// question reads as contact (contactType).
func mayAskContact(lower string) bool {
	for _, w := range []string{"you", "ur", "u ", "phone", "tel", "number", "call", "ring", "mail", "address",
		"postcode", "zip", "where", "locat", "open", "clos", "shut", "hour", "contact", "touch", "speak", "talk"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return strings.HasSuffix(lower, " u") || lower == "u"
}

// contactWords reports whether every word of ws is a contact word, a
// service's own noun or filler (contactKeys, contactFiller).
func contactWords(ws []string) bool {
	for _, w := range ws {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if _, ok := contactKeys[w]; !ok && !contactFiller[w] {
			return false
		}
	}
	return true
}

// contactRank orders the contact types a question made of contact words
// may name at once: "email address" asks for an email, "the number for
// the front desk" for a phone number, "where and when are you open" for
// hours.
func contactRank(t answerType) int {
	switch t {
	case typeEmail:
		return 0
	case typePhone:
		return 1
	case typeHours:
		return 2
	case typeAddress:
		return 3
	}
	return 4
}

// contactKeys are the words that make a question of contact words a
// contact question, with the type each asks for (typeNone: "contact
// details?").
var contactKeys = map[string]answerType{
	"phone": typePhone, "telephone": typePhone, "tel": typePhone, "number": typePhone, "mobile": typePhone,
	"landline": typePhone, "helpline": typePhone, "hotline": typePhone, "call": typePhone, "ring": typePhone,
	"email": typeEmail, "e-mail": typeEmail, "emails": typeEmail,
	"address": typeAddress, "postcode": typeAddress, "zip": typeAddress, "zipcode": typeAddress,
	"location": typeAddress, "located": typeAddress, "where": typeAddress, "wheres": typeAddress, "find": typeAddress, "based": typeAddress,
	"directions": typeAddress, "whereabouts": typeAddress,
	"open": typeHours, "opening": typeHours, "opens": typeHours, "close": typeHours, "closing": typeHours,
	"closes": typeHours, "closed": typeHours, "shut": typeHours, "shuts": typeHours, "hours": typeHours,
	"contact": typeNone, "touch": typeNone,
}

// contactFiller are the other words a contact question may be made of:
// question words, politeness, times and days, and the nouns a service
// calls its own front door ("reception", "the shop").
var contactFiller = setOf(`what whats which when how is are was be the a an your ur you u yours please pls plz can could
would will may might i we me us have has get got give do does did tell know need want to for of on at in it its there
any some and or hi hello hey thanks thank time times today tonight tomorrow now currently still usual usually normal
normally regular main best right correct full official general enquiries enquiry inquiries inquiry details detail
info information reach send write exactly again late early till until til from by if this that so just also one
speak talk someone anyone book booking bookings visit come get there up
monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays
sundays mon tue wed thu fri sat sun weekend weekends weekday weekdays week day days daily morning mornings
afternoon afternoons evening evenings bank public holiday holidays christmas easter boxing new year eve summer
winter half term lunch lunchtime hour o'clock am pm noon midday
shop store office desk front reception school studio clinic practice surgery salon centre center business company
branch head team staff support customer customers service services helpdesk place gym cafe restaurant library
museum gallery garage workshop pharmacy bakery hotel
sat nav satnav map maps post postal mailing street nearest closest local
january february march april may june july august september october november december
question questions message messages ask enquire about something else anything abouts
secretary secretarys manager managers owner receptionist admin administrator treasurer`)

// contactVerbs turn a question from the service's contact details to a
// task on the customer's own ("change my email", "deliver to my
// address"): such a question is not a contact question.
var contactVerbs = setOf(`change update edit add enter remove delete verify forgot forgotten reset unsubscribe subscribe
share deliver delivery ship shipping sell`)

func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// contactRune folds a typographic apostrophe into ' and sentence
// punctuation into a space, so that phrases match at a question's end
// ("call you?").
func contactRune(r rune) rune {
	switch r {
	case '\u2019', '\u2018':
		return '\''
	case '?', '!', '.', ',', ';', ':':
		return ' '
	}
	return r
}
