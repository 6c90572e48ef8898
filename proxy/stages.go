package proxy

// StageConfigs holds the configuration sections of the pipeline stages; it is
// inlined at the top level of the YAML file.
type StageConfigs struct{}

func defaultStages() StageConfigs { return StageConfigs{} }

// validate returns each section's problems keyed by section name.
func (s StageConfigs) validate() map[string]error { return nil }
