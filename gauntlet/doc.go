// Package gauntlet implements the streaming marker transducer that resolves
// footnote markers into citations and deletes every marker it cannot resolve.
package gauntlet
