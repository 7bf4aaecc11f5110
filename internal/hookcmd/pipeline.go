package hookcmd

// Placeholder until the memory pipeline lands (issue 5).
func demoPipeline() []demoStep { return nil }
