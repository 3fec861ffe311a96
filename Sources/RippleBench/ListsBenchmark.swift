import RippleBenchShapes

/// Lists at scale (the `lists` group, Swift only): 10,000 rows with an effect each, and one operation per row of the
/// table (an edit of one row, an insert in the middle, a move, an edit read through a filtered and sorted view).
/// The Swift column is Ripple's KeyedCollection, the floor column the same by hand, the Observation column
/// `@Observable` row objects; all three in milliseconds for the KeyedCollection's number of operations. The notes
/// give nanoseconds per operation, the atom holding an array (every row re-runs) and its ratio to the
/// KeyedCollection, and the effects one operation runs (and, on the view's row, an edit that makes a row enter or
/// leave a filtered view in the collection's order); an edit that is not at least 100x faster than the array atom's,
/// or that runs more than one effect, is a failed check.
func listsBenchmarks() -> [Benchmark] {
    let titles: [RippleLists.Operation: String] = [
        .edit: "lists 10k: edit one row", .insert: "lists 10k: insert in the middle", .move: "lists 10k: move a row",
        .view: "lists 10k: edit, filtered+sorted view",
    ]
    return RippleLists.Operation.allCases.map { operation in
        Benchmark(id: "lists-\(operation.rawValue)", group: "lists", title: titles[operation]!) { row, options in
            let samples = options.samples(RippleLists.defaultSamples)
            let operations = RippleLists.operations(operation, perRowCost: false)
            func nanoseconds(_ result: ShapeResult) -> Double { result.milliseconds * 1e6 / Double(result.operations) }
            var notes: [String] = []
            if options.floor {
                let hand = RippleLists.handWritten(operation, samples: samples)
                row.floorMilliseconds = hand.milliseconds
                row.failures += hand.failures.map { "by hand: \($0)" }
                row.figures["handNsPerOperation"] = nanoseconds(hand)
                notes.append("by hand \(format(nanoseconds(hand))) ns")
            }
            guard options.swift else { return }
            let keyed = RippleLists.keyed(operation, samples: samples)
            row.takeSwift(keyed)
            row.figures["keyedNsPerOperation"] = nanoseconds(keyed)
            notes.insert("KeyedCollection \(format(nanoseconds(keyed))) ns", at: 0)
            let array = RippleLists.arrayAtom(operation, samples: samples)
            row.failures += array.failures.map { "array atom: \($0)" }
            let speedup = nanoseconds(array) / nanoseconds(keyed)
            row.figures["arrayAtomNsPerOperation"] = nanoseconds(array)
            row.figures["arrayAtomOverKeyed"] = speedup
            notes.append("array atom \(format(nanoseconds(array))) ns (\(format(speedup))x the KeyedCollection)")
            let runs = RippleLists.keyedRuns(operation)
            row.figures["rowEffectsPerOperation"] = Double(runs.rowEffects)
            row.figures["listEffectsPerOperation"] = Double(runs.list)
            notes.append("effects per operation: \(runs.rowEffects) row, \(runs.list) list")
            if operation == .view {
                let filter = RippleLists.keyedFilterEntry(samples: samples)
                row.failures += filter.failures
                row.figures["filterEntryNsPerOperation"] = nanoseconds(filter)
                notes.append("a row entering or leaving a filtered view \(format(nanoseconds(filter))) ns")
            }
            if operation == .edit {
                let bytes = RippleLists.bytesPerRow()
                row.figures["keyedBytesPerRow"] = bytes
                notes.append("a KeyedCollection takes \(format(bytes)) B per row")
                if speedup < 100 { row.failures.append("an edit is \(format(speedup))x the array atom's: under 100x") }
                if runs.rowEffects != 1 || runs.list != 0 {
                    row.failures.append("an edit ran \(runs.rowEffects) row effects and \(runs.list) list effects")
                }
            }
            #if canImport(Observation)
            if options.observation {
                var observed = ObservationLists.run(operation, samples: options.observationSamples(samples))
                observed.scale = Double(operations) / Double(observed.operations)
                row.takeObservation(observed)
                row.figures["observationNsPerOperation"] = nanoseconds(observed)
                notes.append("Observation \(format(nanoseconds(observed))) ns")
            }
            #endif
            row.notes.append("per operation: " + notes.joined(separator: ", "))
        }
    }
}
