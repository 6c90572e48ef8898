package proxy

// ScriptedUpstream is scriptedUpstream for the package's external tests.
var ScriptedUpstream = scriptedUpstream
