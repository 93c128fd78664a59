package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
)

// LabelSlice and its taint reserve a slice of nodes for one spec.
const LabelSlice = "gangconf.io/slice"

// Slice is a set of fake nodes private to one spec: tainted so that no other
// pod lands there, labelled so that the spec's pods can select them. With it,
// specs run in parallel and their capacity arithmetic stays exact.
type Slice struct {
	ID    string
	Nodes NodeSpec
}

// NewSlice creates count nodes of the named shape for the slice id, spread
// over racks of perRack nodes, with the extra labels, and waits until they
// are Ready.
func NewSlice(ctx context.Context, cs kubernetes.Interface, id, shape string, count, perRack int, labels map[string]string) (*Slice, error) {
	return NewCustomSlice(ctx, cs, id, shape, count, perRack, labels, nil)
}

// NewCustomSlice is NewSlice with mutate applied to each node i last (see
// NodeSpec.Mutate); nil changes nothing.
func NewCustomSlice(ctx context.Context, cs kubernetes.Interface, id, shape string, count, perRack int, labels map[string]string, mutate func(int, *corev1.Node)) (*Slice, error) {
	s, err := CreateSlice(ctx, cs, id, shape, count, perRack, labels, mutate)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx, cs); err != nil {
		return nil, err
	}
	return s, nil
}

// CreateSlice is NewCustomSlice without the wait: the nodes are created, and
// Ready only once something (kwok) manages them.
func CreateSlice(ctx context.Context, cs kubernetes.Interface, id, shape string, count, perRack int, labels map[string]string, mutate func(int, *corev1.Node)) (*Slice, error) {
	sh, err := fixtures.Shape(shape)
	if err != nil {
		return nil, err
	}
	if perRack < 1 || count%perRack != 0 {
		return nil, fmt.Errorf("slice %s: %d nodes do not fill racks of %d", id, count, perRack)
	}
	s := &Slice{ID: id}
	s.Nodes = NodeSpec{
		Set:         fixtures.NodeSet{Shape: shape, Count: count, Topology: fixtures.Topology{Zones: 1, BlocksPerZone: 1, RacksPerBlock: count / perRack}},
		Shape:       sh,
		Prefix:      id,
		OwnTopology: true,
		SetName:     id,
		Labels:      map[string]string{LabelSlice: id},
		Taints:      []corev1.Taint{{Key: LabelSlice, Value: id, Effect: corev1.TaintEffectNoSchedule}},
		Mutate:      mutate,
	}
	for k, v := range labels {
		s.Nodes.Labels[k] = v
	}
	if err := CreateNodes(ctx, cs, s.Nodes); err != nil {
		return nil, fmt.Errorf("slice %s: %w", id, err)
	}
	return s, nil
}

// WaitReady blocks until every node of the slice is Ready.
func (s *Slice) WaitReady(ctx context.Context, cs kubernetes.Interface) error {
	if err := WaitNodesReady(ctx, cs, s.Nodes.Selector(), s.Nodes.Set.Count); err != nil {
		return fmt.Errorf("slice %s: %w", s.ID, err)
	}
	return nil
}

// NodeName is the name of node i of the slice.
func (s *Slice) NodeName(i int) string { return s.Nodes.name(i) }

// Pin makes a pod land only on the slice: it tolerates the slice's taint and
// selects its label.
func (s *Slice) Pin(p *corev1.Pod) {
	p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{
		Key: LabelSlice, Operator: corev1.TolerationOpEqual, Value: s.ID, Effect: corev1.TaintEffectNoSchedule,
	})
	if p.Spec.NodeSelector == nil {
		p.Spec.NodeSelector = map[string]string{}
	}
	p.Spec.NodeSelector[LabelSlice] = s.ID
}

// Delete removes the slice's nodes.
func (s *Slice) Delete(ctx context.Context, cs kubernetes.Interface) error {
	return DeleteNodes(ctx, cs, s.Nodes)
}
