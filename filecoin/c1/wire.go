package c1

// The wire types are the serde_json forms of the Rust types, fields in Rust's declaration order
// (filecoin-proofs-api src/seal.rs SealCommitPhase1Output; storage-proofs-core
// src/merkle/proof.rs MerkleProof, ProofData, SingleProof, SubProof, TopProof, InclusionPath,
// PathElement; storage-proofs-porep src/stacked/vanilla params.rs Proof, ReplicaColumnProof,
// column.rs Column, column_proof.rs ColumnProof, labeling_proof.rs, encoding_proof.rs). The
// PhantomData field Column._h serializes as null; LabelingProof._h and PathElement._arity are
// skipped.

type wirePathElement struct {
	Hashes []domain `json:"hashes"`
	Index  uint64   `json:"index"`
}

type wireInclusionPath struct {
	Path []wirePathElement `json:"path"`
}

type wireSingleProof struct {
	Root domain            `json:"root"`
	Leaf domain            `json:"leaf"`
	Path wireInclusionPath `json:"path"`
}

type wireSubProof struct {
	BaseProof wireInclusionPath `json:"base_proof"`
	SubProof  wireInclusionPath `json:"sub_proof"`
	Root      domain            `json:"root"`
	Leaf      domain            `json:"leaf"`
}

type wireTopProof struct {
	BaseProof wireInclusionPath `json:"base_proof"`
	SubProof  wireInclusionPath `json:"sub_proof"`
	TopProof  wireInclusionPath `json:"top_proof"`
	Root      domain            `json:"root"`
	Leaf      domain            `json:"leaf"`
}

type wireProofData struct {
	Single *wireSingleProof `json:"Single,omitempty"`
	Sub    *wireSubProof    `json:"Sub,omitempty"`
	Top    *wireTopProof    `json:"Top,omitempty"`
}

type wireMerkleProof struct {
	Data wireProofData `json:"data"`
}

type wireColumn struct {
	Index uint32    `json:"index"`
	Rows  []domain  `json:"rows"`
	H     *struct{} `json:"_h"`
}

type wireColumnProof struct {
	Column         wireColumn      `json:"column"`
	InclusionProof wireMerkleProof `json:"inclusion_proof"`
}

type wireReplicaColumnProof struct {
	CX         wireColumnProof   `json:"c_x"`
	DrgParents []wireColumnProof `json:"drg_parents"`
	ExpParents []wireColumnProof `json:"exp_parents"`
}

type wireLabelingProof struct {
	Parents    []domain `json:"parents"`
	LayerIndex uint32   `json:"layer_index"`
	Node       uint64   `json:"node"`
}

type wireProof struct {
	CommDProofs         wireMerkleProof        `json:"comm_d_proofs"`
	CommRLastProof      wireMerkleProof        `json:"comm_r_last_proof"`
	ReplicaColumnProofs wireReplicaColumnProof `json:"replica_column_proofs"`
	LabelingProofs      []wireLabelingProof    `json:"labeling_proofs"`
	EncodingProof       wireLabelingProof      `json:"encoding_proof"`
}

type wireOutput struct {
	RegisteredProof string                   `json:"registered_proof"`
	VanillaProofs   map[string][][]wireProof `json:"vanilla_proofs"`
	CommR           domain                   `json:"comm_r"`
	CommD           domain                   `json:"comm_d"`
	ReplicaID       domain                   `json:"replica_id"`
	Seed            domain                   `json:"seed"`
	Ticket          domain                   `json:"ticket"`
}
