// Package results is what a run leaves in its results directory, as the
// harness and the benchmarks write it and the report reads it back:
//
//	environment.json                  Environment (also bench/environment.json)
//	bench/<scenario>.json             DataItems, perf-dash's format
//	bench/<scenario>-result.json      Result, with the Scenario as it ran
//	bench-upstream/upstream-gangs*    DataItems and UpstreamResult
//	mutants/mutants.json              Mutants, the verdicts of make mutants
//	soak/soak.json                    Soak, the runs and flake table of make soak
//
// Whatever writes or reads these files uses these types, with no copies
// elsewhere: a field renamed here is renamed in the files. The types carry
// only what reads or combines their own data; measuring, summarising into
// DataItems and writing are the benchmarks' (package bench).
package results
