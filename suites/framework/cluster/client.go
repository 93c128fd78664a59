package cluster

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig is the harness's client configuration for the cluster of a
// kubeconfig: client-side rate limits off (the harness must never be what
// slows a run), protobuf rather than JSON, no API deprecation warnings
// (every PodGroup call carries one), and the kubeconfig's certificate files
// read into it.
//
// The last because client-go caches its transports by the files' paths and
// rereads them at most every 5 minutes; kwokctl puts a new cluster of the
// same name at the same paths, so a cluster made within 5 minutes of the
// last was dialled with the old cluster's CA and failed ("x509: certificate
// signed by unknown authority").
//
// Protobuf because the scheduler and the controller manager speak it, as
// does upstream scheduler_perf's test client: in JSON the API server
// decoded and encoded each of a benchmark's creates and deletes, and its
// watch's events, in a format they do not use, on the machine it measures
// (kwok watches in JSON, so bound pods' events it encodes so anyway). The
// difference did not show in an A/B of sweeps (bench/MEASUREMENTS.md).
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	if err := rest.LoadTLSFiles(cfg); err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, -1
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg, nil
}
