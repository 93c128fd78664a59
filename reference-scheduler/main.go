// Command reference-scheduler is kube-scheduler v1.37.2, unchanged, with the
// in-tree GangScheduling plugin: the scheduler every other implementation of
// the PodGroup contract is compared with. It is built from the pinned module so
// that the version under test is exactly the one go.sum records.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
