// Package explore is guided exploration of the generated scenario space: simrun explore.
//
// A generated sweep draws generate.Seed(seed) seed after seed, which samples the
// space uniformly: a rare combination (a savepoint restored after a coordinator
// recovery, a checkpoint id past 99 under a partition) comes as rarely as the draw makes
// it. Exploration keeps the inputs whose runs reached something new and mutates them,
// most often those that reached what few runs reach, as a coverage-guided fuzzer does.
//
// The input is a genome: the uint64 values a recording rand.Source handed
// generate.From, with past its end values from a PCG keyed by the genome (Draw).
// Mutations (Mutation) change, nudge, insert, delete, copy and splice values, or change the
// run's seed. The generator may refuse a mutant (generate.From panics on a draw it cannot
// complete): the mutant is discarded and counted, never run. Every scenario drawn is one
// generate.From can draw, so a correct engine passes it; an artifact of a find holds the
// scenario itself, so it replays without the genome.
//
// The feedback is what a run reached (Observer): the specification's rules it gave an
// occasion to judge, alone and with each word of their vocabulary the run showed; pairs
// of consecutive event kinds of a task; fault kinds that fired; abort and failover
// reasons; checkpoint ids past 9, 99 and 999; checkpoints in flight at once; restores from
// savepoints; coordinator recoveries; bucketed counts of failovers, aborts and crashes. A
// feature's rarity is one over the runs that reached it, and an entry's energy is the sum
// of its features' rarities (Corpus.Energy): the rules are the model, rarity the guide.
//
// Determinism: the explorer draws input i after merging, in run order, the results of runs
// 0 to i-Window. Window is a constant, so the same seed explores the same inputs with any
// number of workers, and the run at which a bug is first caught does not depend on -j or
// the machine; only the number of runs a wall-clock budget allows does.
package explore
