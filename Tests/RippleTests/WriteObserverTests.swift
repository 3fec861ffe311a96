@_spi(Testing) import Ripple
import Testing

/// An atom's own write observer (`AtomObject.observeWrites`, the persistence module's path): it sees exactly the
/// changes a change hook would see of that atom, and installs no hook, so the runtime's other atoms keep their fast
/// path.
@Suite struct WriteObserverTests {
    @Test func theObserverSeesEachChangeInOrderAndNoEqualWriteWithoutAnyHook() {
        withIsolatedRuntime {
            let observed = atom(0, label: "observed")
            let other = atom(0, label: "other")
            let seen = Recorder<Int>()
            observed.observeWrites { seen.append($0) }
            #expect(Runtime.current.changeHookCount == 0)
            observed.value = 1
            observed.value = 1  // equal: no change
            other.value = 5
            batch {
                observed.value = 2
                observed.update { $0 += 1 }
            }
            observed.reset()
            #expect(seen.values == [1, 2, 3, 0])
            #expect(Runtime.current.changeHookCount == 0)
        }
    }

    @Test func withAChangeHookInstalledTheObserverIsCalledOnceAfterTheHooks() {
        withIsolatedRuntime {
            let observed = atom(0, label: "observed")
            let seen = Recorder<String>()
            observed.observeWrites { seen.append("observer \($0)") }
            let hook = Runtime.current.onChange { change in seen.append("hook \(change)") }
            observed.value = 1
            hook.cancel()
            observed.value = 2
            #expect(seen.values == ["hook observed: 0 → 1", "observer 1", "observer 2"])
        }
    }

    @Test func aTransactionReachesTheObserverOnlyWhenItCommits() {
        struct Invalid: Error {}
        withIsolatedRuntime {
            let observed = atom(0, label: "observed")
            let seen = Recorder<Int>()
            observed.observeWrites { seen.append($0) }
            #expect(throws: Invalid.self) {
                try transaction {
                    observed.value = 1
                    throw Invalid()
                }
            }
            #expect(seen.values == [])
            transaction {
                observed.value = 2
                #expect(seen.values == [])
                observed.value = 3
            }
            #expect(seen.values == [2, 3])
            #expect(Runtime.current.changeHookCount == 0)
        }
    }

    @Test func aRestoreAndAnInPlaceMutationReachTheObserver() {
        withIsolatedRuntime {
            let observed = atom([1], label: "observed")
            let seen = Recorder<[Int]>()
            observed.observeWrites { seen.append($0) }
            let before = Runtime.current.snapshot()
            observed.value = [2]
            _ = Runtime.current.restore(before)
            Runtime.current.didMutate(observed)
            #expect(seen.values == [[2], [1], [1]])
        }
    }

    @Test func theOwnerGivenWithTheObserverIsFoundOnTheAtomAndGoesWithIt() {
        final class Owner {}
        withIsolatedRuntime {
            let observed = atom(0, label: "observed")
            let other = atom(0, label: "other")
            #expect(observed.writeObserverOwner == nil)
            weak var firstOwner: Owner?
            do {
                let first = Owner()
                firstOwner = first
                observed.observeWrites(owner: first) { _ in }
                #expect(observed.writeObserverOwner === first)
            }
            #expect(firstOwner != nil)  // held by the observer
            #expect(other.writeObserverOwner == nil)
            let second = Owner()
            observed.observeWrites(owner: second) { _ in }  // replaces the first observer and its owner
            #expect(observed.writeObserverOwner === second)
            #expect(firstOwner == nil)  // the replaced observer no longer holds its owner
        }
    }
}
