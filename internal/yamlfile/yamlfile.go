// Package yamlfile reads the YAML files people write by hand (the mutant
// catalogue, the controls record, a vendor's PRODUCT.yaml) strictly: a
// misspelt or unknown field is an error, not a setting silently dropped.
package yamlfile

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// Read decodes the file at path into a new T. An error in the YAML names
// the file.
func Read[T any](path string) (*T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v T
	if err := yaml.UnmarshalStrict(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &v, nil
}
