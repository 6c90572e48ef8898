// Package wordforms implements the word groups the verifier and the index
// read as one term: irregular forms the Porter stemmer leaves apart ("sold"
// and "sell") and a few common synonyms of everyday English ("shut" and
// "close"), so a paraphrase meets its source on the same terms.
package wordforms

// Groups are the word groups, one a string, the group's name first. Each
// reader maps every word of a group, and its Porter stem, to one term of
// its own choosing; nothing may modify Groups.
var Groups = []string{
	"light lit lighted lighting lights",
	"buy bought buying buys purchase purchased purchases purchasing",
	"begin began begun beginning begins start started starts starting commence commenced",
	"end ended ends ending finish finished finishes conclude concluded",
	"build built building builds construct constructed",
	"make made making makes",
	"take took taken takes taking",
	"hold held holds holding",
	"lead led leads leading",
	"sell sold sells selling",
	"pay paid pays paying",
	"write wrote written writes writing",
	"find found finds finding",
	"give gave given gives giving",
	"leave left leaves leaving depart departs departed departing",
	"run ran runs running",
	"win won wins winning",
	"know knew known",
	"grow grew grown growing grows",
	"show showed shown shows showing demonstrate demonstrated demonstrates",
	"need needs needed require requires required requirement",
	"get gets got obtain obtains obtained receive receives received",
	"allow allows allowed permit permits permitted",
	"help helps helped assist assists assisted",
	"use used uses using utilise utilised utilize utilized employ employed",
	"big large huge",
	"small little tiny",
	"quick fast rapid rapidly quickly",
	"tall high",
	"car automobile",
	"kid kids child children",
	"cost costs price priced",
	"free gratis",
	"shut close closed closes",
	"open opened opens",
	"travel travels travelled traveled traveling travelling journey",
	"live lives lived reside resides resided",
	"die died dies death",
	"born birth",
	"automate automated automatic",
	"every each",
	"see seen saw visible",
}
