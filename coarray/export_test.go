package coarray

// AgreeLanes is the number of int64 lanes of the agreement's vector.
const AgreeLanes = agreeLanes
