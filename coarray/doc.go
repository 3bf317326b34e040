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
// ERRMSG. What is checked depends on the mode:
//
//   - Always, on each image: its own arguments (an image index outside the
//     team, an element type with pointers or that the operation does not
//     take, an operator not given to Init or made for another type, a
//     length that is not whole elements). The standard requires the images
//     to pass the same arguments, so such an error is found on every image
//     alike: each image then makes the agreement (see below) instead of
//     the collective, in the call's place in the team's sequence, and every
//     image returns the error. String collectives always make the
//     agreement (they learn the character length from it, or check every
//     image's values against CharLen), so a value too long on one image
//     gives ErrLength on every image.
//   - An operator that panics, or returns a string too long, fails the
//     call on the images where it ran (ErrOperator, ErrLength); the others
//     finish.
//   - Default mode: a collective is one collective of gocoll's engine and
//     the images' arguments are not compared. If they differ (another
//     length, RESULT_IMAGE or SOURCE_IMAGE, or an argument bad on some
//     images only), the engine's own default checks (package coll,
//     "Disagreeing arguments") keep every image from receiving wrong data:
//     an image that receives a message of the other call gets ErrMismatch
//     (or ErrCollective, where the conduit refuses a message of another
//     size), one that waits for a message nobody sends gets ErrStalled
//     after the stall timeout (coll.Options.StallTimeout, GOCOLL_STALL;
//     ten minutes by default), an image whose part needs nothing from the
//     others (the source of a broadcast, an image that only sends) may
//     succeed with its own data, and an image with a bad argument of its
//     own returns that error once its agreement ended. The failed call's
//     messages may stay unmatched and the conduit may keep its error: the
//     team may be of no further use.
//   - Checked mode (Options.Checked, or GOCOLL_CAF_CHECK=1 at Init): every
//     collective first makes the agreement: one small reduction over the
//     team of its kind, length, element size, source or result image,
//     operator, character length, and the STAT of any error an image found
//     in its own arguments. Every image then returns the same error before
//     any data moves: ErrMismatch naming the argument that differs, or the
//     other image's error ("on another image"). CO_REDUCE operators are
//     also applied twice to the operands they see and their results
//     compared (an operator that keeps state gives ErrImpure, on the images
//     where it ran). It costs a second small collective per call
//     (BENCHMARKS.md, "The coarray face") and twice the operator's work:
//     use it while developing, or where a job must survive a misuse.
//   - Stopped images: once the caller tells an image that another image
//     stopped (Stopped, with the collectives the stopped image had
//     started), the collectives of teams that contain it that it never
//     started return ErrStoppedImage (STAT_STOPPED_IMAGE), those waiting
//     at once; the ones it started complete. The package does not learn of
//     stops by itself: the gfortran and flang runtime sends a notice when
//     an image stops (coarray/runtime).
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
// Argument checks and the agreement, and when it runs: call.go (agree,
// checkImage); STAT values and the engine's errors' mapping to them:
// errors.go (collErr); the function table and the character operators:
// kinds.go; strings: strings.go; operators and their checks: operator.go;
// teams: team.go.
package coarray
