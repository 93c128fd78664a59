// Package badinput keeps README.md's table of the bad inputs the harness
// rejects true to the code: its test runs each row's input through the
// checks a run makes (settings, bench plan, harness, preflight, bundle,
// mutant catalogue), without a cluster, and fails when the message does not
// hold the row's text, or when a row has no such check.
package badinput
