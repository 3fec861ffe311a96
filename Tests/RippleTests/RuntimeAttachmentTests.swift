import Ripple
import Testing

/// Per-runtime attachments, and change hooks that do not keep their runtime alive (what RipplePersistence keeps
/// per runtime).
@Suite struct RuntimeAttachmentTests {
    final class Marker: Sendable {
        let id: Int
        init(_ id: Int) { self.id = id }
    }

    final class Other: Sendable {}

    @Test func anAttachmentIsMadeOncePerTypeAndRuntime() {
        let runtime = Runtime()
        #expect(runtime.existingAttachment(Marker.self) == nil)
        let first = runtime.attachment(Marker.self) { _ in Marker(1) }
        let second = runtime.attachment(Marker.self) { _ in Marker(2) }
        #expect(first === second)
        #expect(second.id == 1)
        #expect(runtime.existingAttachment(Marker.self) === first)
        #expect(runtime.existingAttachment(Other.self) == nil)
        #expect(Runtime().existingAttachment(Marker.self) == nil)
    }

    @Test func anAttachmentGoesWithItsRuntime() {
        weak var attachment: Marker?
        weak var weakRuntime: Runtime?
        do {
            let runtime = Runtime()
            weakRuntime = runtime
            attachment = runtime.attachment(Marker.self) { _ in Marker(1) }
            #expect(attachment != nil)
        }
        #expect(weakRuntime == nil)
        #expect(attachment == nil)
    }

    final class Changes: @unchecked Sendable {
        // @unchecked: tests write it from the thread that writes the atom, then read it on that thread.
        var seen: [String] = []
    }

    @Test func aChangeHookThatDoesNotRetainItsRuntimeReportsUntilTheRuntimeGoes() {
        let changes = Changes()
        weak var weakRuntime: Runtime?
        var hook: ChangeHook?
        do {
            let runtime = Runtime()
            weakRuntime = runtime
            hook = runtime.onChange(retainingRuntime: false) { changes.seen.append("\($0)") }
            withIsolatedRuntime(using: runtime) {
                let count = atom(0, label: "count")
                count.value = 1
                count.value = 2
            }
        }
        #expect(weakRuntime == nil)
        #expect(changes.seen == ["count: 0 → 1", "count: 1 → 2"])
        hook?.cancel()  // the runtime is gone: nothing to remove
        hook = nil
    }

    @Test func aChangeHookThatDoesNotRetainItsRuntimeCanBeCancelled() {
        let changes = Changes()
        let runtime = Runtime()
        let hook = runtime.onChange(retainingRuntime: false) { changes.seen.append("\($0)") }
        withIsolatedRuntime(using: runtime) {
            let count = atom(0, label: "count")
            count.value = 1
            hook.cancel()
            count.value = 2
        }
        #expect(changes.seen == ["count: 0 → 1"])
    }
}
