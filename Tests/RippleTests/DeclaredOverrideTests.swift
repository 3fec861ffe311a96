import Testing

@testable import Ripple

private let price = declare.atom { 10 }
private let quantity = declare.atom { 2 }
private let total = declare.derived { price.value * quantity.value }
private let discount = declare.derived { 0 }
private let payable = declare.derived { total.value - discount.value }
private let stock = declare.atomFamily { (item: String) in item.count }
private let label = declare.derivedFamily { (item: String) in "\(item): \(stock(item).value)" }

/// Overrides: of one declaration or a whole family, before or after first use, applied in one batch so that each
/// effect downstream runs once.
@Suite struct DeclaredOverrideTests {
    @Test func anOverrideBeforeFirstUseIsTheDefault() {
        withIsolatedRuntime(overriding: price.overridden(with: 3), discount.overridden { 1 }) {
            #expect(price.value == 3)
            #expect(total.value == 6)
            #expect(payable.value == 5)
        }
        withIsolatedRuntime {
            #expect(payable.value == 20)  // another runtime: no override
        }
    }

    @Test func overridingAfterFirstUseRunsEachEffectOnce() {
        withIsolatedRuntime {
            let log = RunLog<Int>()
            let show = Effect { log.values.append(payable.value) }
            Runtime.current.override(price.overridden(with: 5), quantity.overridden(with: 3), discount.overridden(with: 4))
            #expect(log.values == [20, 11])
            price.value = 6  // still an atom: writable after its override
            #expect(log.values == [20, 11, 14])
            _ = show
        }
    }

    @Test func aDerivationOverriddenByAnotherBodyTracksThatBody() {
        withIsolatedRuntime {
            let log = RunLog<Int>()
            let bonus = atom(1)
            let show = Effect { log.values.append(payable.value) }
            Runtime.current.override(discount.overridden { bonus.value * 2 })
            bonus.value = 3
            #expect(log.values == [20, 18, 14])
            _ = show
        }
    }

    @Test func anOverrideOfAWholeFamilyAppliesToExistingAndFutureKeys() {
        withIsolatedRuntime {
            let log = RunLog<String>()
            let show = Effect { log.values.append(label("ab").value + ", " + label("abc").value) }
            Runtime.current.override(stock.overridden { item in item.count * 100 })
            #expect(log.values == ["ab: 2, abc: 3", "ab: 200, abc: 300"])
            #expect(stock("abcd").value == 400)  // a key first used after the override
            _ = show
        }
    }

    @Test func anOverrideOfADerivedFamilyAppliesToEveryMember() {
        withIsolatedRuntime {
            let log = RunLog<String>()
            let show = Effect { log.values.append(label("x").value + "|" + label("yy").value) }
            Runtime.current.override(label.overridden { item in "fake \(item)" })
            #expect(log.values == ["x: 1|yy: 2", "fake x|fake yy"])
            #expect(label("zzz").value == "fake zzz")
            _ = show
        }
    }

    @Test func overridesAreAppliedTogetherInOneBatch() {
        withIsolatedRuntime {
            let runs = RunCount()
            let show = Effect {
                _ = label("a").value
                _ = payable.value
                runs.increment()
            }
            Runtime.current.override(
                stock.overridden { _ in 9 }, price.overridden(with: 1), discount.overridden(with: 1))
            #expect(runs.value == 2)
            #expect(label("a").value == "a: 9")
            #expect(payable.value == 1)
            _ = show
        }
    }

    @Test func theLastOverrideOfADeclarationWins() {
        withIsolatedRuntime(overriding: price.overridden(with: 1), price.overridden(with: 2)) {
            #expect(price.value == 2)
        }
    }
}

/// Overrides of one member of a family: before and after first use, against the family's own override.
@Suite struct DeclaredMemberOverrideTests {
    @Test func aMemberOverrideBeforeFirstUseLeavesTheOtherKeys() {
        withIsolatedRuntime(overriding: stock.overridden("ab", with: 50), label.overridden("x", with: "fake x")) {
            #expect(stock("ab").value == 50)
            #expect(stock("abc").value == 3)
            #expect(label("ab").value == "ab: 50")
            #expect(label("x").value == "fake x")
            #expect(label("yy").value == "yy: 2")
        }
    }

    @Test func aMemberOverrideAfterFirstUseRunsTheEffectOnce() {
        withIsolatedRuntime {
            let log = RunLog<String>()
            let show = Effect { log.values.append(label("ab").value + ", " + label("abc").value) }
            Runtime.current.override(stock.overridden("ab", with: 7), label.overridden("abc", with: "gone"))
            #expect(log.values == ["ab: 2, abc: 3", "ab: 7, gone"])
            _ = show
        }
    }

    @Test func aMemberOverrideWinsOverAnEarlierFamilyOverrideAndLosesToALaterOne() {
        withIsolatedRuntime(overriding: stock.overridden { _ in 1 }, stock.overridden("ab", with: 2)) {
            #expect(stock("ab").value == 2)
            #expect(stock("q").value == 1)
            Runtime.current.override(stock.overridden { _ in 3 })
            #expect(stock("ab").value == 3)
        }
    }
}
