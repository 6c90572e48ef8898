//go:build !linux

package evrelay

import "errors"

// Loop is Linux only: New fails elsewhere.
type Loop struct{}

// New fails: the event loop is Linux only.
func New(Config) (*Loop, error) {
	return nil, errors.New("evrelay: the event loop is Linux only")
}

func (*Loop) Start(*Stream) error   { return ErrClosed }
func (*Loop) Cancel(*Stream, error) {}
func (*Loop) Close()                {}
func (*Loop) Streams() int64        { return 0 }
func (*Loop) Pauses() int64         { return 0 }

type conn struct{}
