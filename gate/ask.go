package gate

import "strings"

// Ask is what a question's wording asks for (AskOf): an input of Decide,
// kept in the turn log so that the what-if replays the decision. The zero
// Ask (a turn logged before it was kept) decides as the thresholds alone
// do.
type Ask struct {
	// Type is the answer type asked for: "phone", "email", "time",
	// "count", "cost", "duration", "age", "speed", "distance", "person",
	// "place", or "" for none.
	Type string `json:"type,omitempty"`
	// Contact: the question asks for the service's own contact details,
	// its phone number, email address, address or opening hours ("whats
	// your phone number", "what time do you close on sundays?"). Such a
	// question is on the corpus's topic by its wording: no passage need
	// share a word with it, and general knowledge cannot answer it. Decide
	// grounds it on the passages that hold the asked phone number or email
	// address, and refuses it as a gap of the corpus (naming the closest
	// topics) where the thresholds would bail out.
	Contact bool `json:"contact,omitempty"`
}

// typeNames name the answer types in Ask.Type.
var typeNames = [numTypes]string{typeNone: "", typeTime: "time", typeCount: "count", typeCost: "cost",
	typeDuration: "duration", typeAge: "age", typeSpeed: "speed", typeDistance: "distance", typePerson: "person",
	typePlace: "place", typePhone: "phone", typeEmail: "email"}

// strict reports an asked type whose absence from a passage rules the
// passage out as an answer (strictType).
func (a Ask) strict() bool { return a.Type == typeNames[typePhone] || a.Type == typeNames[typeEmail] }

// AskOf reads what q asks for off its wording: generic English question
// forms, not any corpus's vocabulary.
func AskOf(q string) Ask {
	t, contact := questionType(q)
	return Ask{Type: typeNames[t], Contact: contact}
}

// Ask is what the prepared question asks for (AskOf of its text).
func (q *Question) Ask() Ask { return Ask{Type: typeNames[q.want], Contact: q.contact} }

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
// details (its phone number, email, address or opening hours, "you" or
// "your" being the service) and which type of answer that is (typeNone
// for "how can i contact you").
func contactType(q string) (answerType, bool) {
	lower := strings.ToLower(q)
	// most questions name neither "you" nor "ur": no copy is made for them
	if !strings.Contains(lower, "you") && !strings.Contains(lower, " u") && !strings.Contains(lower, "ur") &&
		!strings.HasPrefix(lower, "u") {
		return typeNone, false
	}
	s := " " + strings.Map(contactRune, lower) + " "
	if !strings.Contains(s, " you") && !strings.Contains(s, " your") && !strings.Contains(s, " u ") && !strings.Contains(s, " ur ") {
		return typeNone, false
	}
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has(" your number", " your mobile number", " ur number", " call you ", " ring you ", " phone you ", " call u ",
		" ring u ", " text you ") ||
		has("phone number", "telephone number", "contact number") && has(" you ", " your ", " u ", " ur "):
		return typePhone, true
	case has(" your email", " your e-mail", " ur email", " email you ", " e-mail you ", " email u ") ||
		has("email address", "e-mail address") && has(" you ", " your ", " u ", " ur "):
		return typeEmail, true
	case has(" your address", " your postcode", " your location", " where are you ", " where r u ", " where are u ",
		" where is your ", " where's your ", " wheres your ", " where can i find you ", " how do i find you ",
		" how to find you ", " how do i get to you ", " where you are "):
		return typePlace, true
	case has(" your opening", " your hours", " your closing", " your times ", " when do you open", " when do you close",
		" what time do you open", " what time do you close", " when are you open", " are you open", " do you open ",
		" do you close", " what time are you open", " how late are you open", " how late do you", " till what time are you",
		" when do u open", " when do u close"):
		return typeTime, true
	case has(" contact you", " get in touch", " reach you", " contact u ", " your contact details"):
		return typeNone, true
	}
	return typeNone, false
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
