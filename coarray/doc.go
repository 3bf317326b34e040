// Package coarray is the Fortran coarray face of gocoll for Go programs:
// the collective subroutines of Fortran 2018 (CO_BROADCAST, CO_SUM, CO_MIN,
// CO_MAX, CO_REDUCE with RESULT_IMAGE, STAT and ERRMSG), SYNC ALL, and teams
// (FORM TEAM, CHANGE TEAM, GET_TEAM, TEAM_NUMBER), over gocoll's engine
// (package coll).
//
// # Images and indices
//
// An image is a gocoll image (Init calls coll.Init). As in Fortran, image
// indices start at 1: ThisImage is 1..NumImages in the current team
// (gocoll's team ranks start at 0; the package translates). SOURCE_IMAGE and
// RESULT_IMAGE are such indices.
//
// # Collectives
//
// CoBroadcast, CoSum, CoMin, CoMax and CoReduce take the array as a slice
// updated in place (a scalar: One(&x)) and run over the current team. An
// array of any length is one collective of the engine: the whole array is
// one element of the engine's reduction, the built-in operators working
// lane by lane (reducefn's Scalar lets the engine split large arrays into a
// reduce-scatter and a gather). Types: every integer, float and complex
// type for CoSum; integers, floats and strings for CoMin and CoMax; any
// pointer-free type (bool, arrays, structs: Fortran's derived types) and
// strings for CoBroadcast and CoReduce. Strings have Fortran's character
// semantics: one character length for the call (blank padding, results
// padded). The byte-level methods (BroadcastBytes, SumBytes, ...) serve
// types Go does not name, such as the gfortran runtime's.
//
// CO_REDUCE's operators are registered at Init (Options.Operators, made by
// OperatorOf or ElementwiseOperator), because gocoll's function table is fixed at
// coll.Init; CoReduce names one by its position (Op).
//
// # Errors
//
// Every error a STAT= argument would report comes back as a Go error that
// errors.Is matches against the package's named errors (ErrInvalidImage,
// ErrMismatch, ErrTeam, ...); Stat gives its STAT value and Error its
// ERRMSG. In the checked mode (the default) arguments that differ between
// images, or an argument bad on some images only, fail the call on every
// image rather than hang (see Options.Unchecked for the cost and what is
// checked of CO_REDUCE operators). An operator that panics or that is found
// impure fails the call on the images where it ran.
//
// # Teams
//
// FormTeam makes a team of the current team (gocoll's Split, keyed by
// NEW_INDEX); ChangeTeam runs a function in it with an Image of its own, so
// that a call through the outer Image while inside, or through the inner one
// after END TEAM, is an error (ErrNotCurrent), never a collective on the
// wrong team. Team.Free gives the team's context back to the engine.
//
// # Where the rules live
//
// Argument checks and the agreement: call.go (agree, checkImage); the
// function table and the character operators: kinds.go; strings:
// strings.go; operators and their checks: operator.go; teams: team.go;
// STAT values: errors.go.
package coarray
