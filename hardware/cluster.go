package hardware

import "fmt"

// Cluster is a number of nodes of identical GPUs. A node is one scale-up
// domain: the GPUs that reach each other over NVLink (8 on an HGX board, 72
// in a GB200 NVL72 rack). Traffic between nodes crosses the scale-out
// network at the GPU's ScaleOut bandwidth.
type Cluster struct {
	GPU         GPU `json:"gpu"`
	GPUsPerNode int `json:"gpus_per_node"`
	Nodes       int `json:"nodes"`
}

// Tier is a class of link a collective can run on.
type Tier int

const (
	// Local means no link: a group of one GPU.
	Local Tier = iota
	// ScaleUp is NVLink (or the GPU's scale-up fabric) inside a node.
	ScaleUp
	// ScaleOut is the network between nodes.
	ScaleOut
)

// String names the tier as the reports print it.
func (t Tier) String() string {
	switch t {
	case Local:
		return "local"
	case ScaleUp:
		return "nvlink"
	case ScaleOut:
		return "network"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// NewCluster builds a cluster of nodes nodes with gpusPerNode GPUs each. A
// gpusPerNode of 0 takes the GPU's scale-up domain size.
func NewCluster(g GPU, gpusPerNode, nodes int) (Cluster, error) {
	if gpusPerNode == 0 {
		gpusPerNode = g.ScaleUpDomain
	}
	c := Cluster{GPU: g, GPUsPerNode: gpusPerNode, Nodes: nodes}
	return c, c.Validate()
}

// ClusterForGPUs builds the smallest cluster of whole nodes that holds
// gpus GPUs. When gpus is smaller than a node, the cluster is one partial
// node of exactly gpus GPUs.
func ClusterForGPUs(g GPU, gpus, gpusPerNode int) (Cluster, error) {
	if gpusPerNode == 0 {
		gpusPerNode = g.ScaleUpDomain
	}
	if gpus < 1 || gpus > MaxGPUs {
		return Cluster{}, fmt.Errorf("hardware: --gpus %d is not in [1, %d]", gpus, MaxGPUs)
	}
	if gpusPerNode < 1 {
		return Cluster{}, fmt.Errorf("hardware: --gpus-per-node %d must be at least 1", gpusPerNode)
	}
	if gpus < gpusPerNode {
		return NewCluster(g, gpus, 1)
	}
	if gpus%gpusPerNode != 0 {
		return Cluster{}, fmt.Errorf("hardware: --gpus %d is not a whole number of %d-GPU nodes (try %d or %d)",
			gpus, gpusPerNode, gpus/gpusPerNode*gpusPerNode, (gpus/gpusPerNode+1)*gpusPerNode)
	}
	return NewCluster(g, gpusPerNode, gpus/gpusPerNode)
}

// GPUs is the total GPU count.
func (c Cluster) GPUs() int { return c.GPUsPerNode * c.Nodes }

// Validate checks the GPU and the shape of the cluster.
func (c Cluster) Validate() error {
	if err := c.GPU.Validate(); err != nil {
		return err
	}
	if c.GPUsPerNode < 1 || c.GPUsPerNode > c.GPU.ScaleUpDomain {
		return fmt.Errorf("hardware: %d GPUs per node is not in [1, %d] (the %s scale-up domain)",
			c.GPUsPerNode, c.GPU.ScaleUpDomain, c.GPU.Name)
	}
	if _, ok := MulCount(c.Nodes, c.GPUsPerNode); !ok || c.Nodes < 1 {
		return fmt.Errorf("hardware: %d nodes of %d GPUs is not in [1, %d] GPUs", c.Nodes, c.GPUsPerNode, MaxGPUs)
	}
	if c.Nodes > 1 && c.GPU.ScaleOut == 0 {
		return fmt.Errorf("hardware: %s has no scale-out network in the catalog; %d nodes need one (give a GPU file with scale_out_gbit_per_s)",
			c.GPU.Name, c.Nodes)
	}
	return nil
}

// Bandwidth is the per-direction bandwidth per GPU on tier t.
func (c Cluster) Bandwidth(t Tier) Bandwidth {
	switch t {
	case ScaleUp:
		return c.GPU.ScaleUp
	case ScaleOut:
		return c.GPU.ScaleOut
	}
	return 0
}

// String describes the cluster, e.g. "16 x 8 h100-sxm (128 GPUs)".
func (c Cluster) String() string {
	return fmt.Sprintf("%d x %d %s (%s)", c.Nodes, c.GPUsPerNode, c.GPU.Name, Plural(c.GPUs(), "GPU", "GPUs"))
}
