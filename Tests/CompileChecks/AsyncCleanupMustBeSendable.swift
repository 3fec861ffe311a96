// A cleanup of an async run runs on the thread that ends the run: in an async body it is registered with
// `await onCleanup { }` and must be Sendable.
// expect-error: capture of 'connection' with non-Sendable type 'Connection' in a '@Sendable' closure
import Ripple

final class Connection { func close() {} }

func latest(_ topic: AtomObject<String>) -> AsyncDerivation<String> {
    derive { () async -> String in
        let connection = Connection()
        await onCleanup { connection.close() }
        return topic.value
    }
}
