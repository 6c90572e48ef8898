package proxy

// ScriptedUpstream is scriptedUpstream for the package's external tests.
var ScriptedUpstream = scriptedUpstream

// EventLoopStreams is how many streams the server's event loop runs now;
// -1 when it never started (server.event_loop off, or no stream took it).
func (s *Server) EventLoopStreams() int64 {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.evl == nil {
		return -1
	}
	return s.evl.Streams()
}
