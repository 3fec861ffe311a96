import Foundation

/// How a persisted declaration encodes, decodes and migrates its values, and whom it tells of errors.
struct PersistenceSettings<Value: Codable & Sendable & Equatable>: Sendable {
    let version: Int
    let migrate: (@Sendable (_ storedVersion: Int, _ data: Data) throws -> Value)?
    let onError: (@Sendable (PersistenceError) -> Void)?

    /// The record of `value` in the current version (JSON, keys sorted so that equal values give equal bytes).
    func encode(_ value: Value) throws -> StoredRecord {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return StoredRecord(version: version, data: try encoder.encode(value))
    }

    /// What a stored record decodes to: the value, and whether it must be written back (it was migrated).
    func decode(_ record: StoredRecord, at location: String) throws(PersistenceError) -> (Value, migrated: Bool) {
        if record.version == version {
            do {
                return (try JSONDecoder().decode(Value.self, from: record.data), false)
            } catch {
                throw .unreadable(location: location, reason: "\(error)")
            }
        }
        if record.version > version {
            throw .newerVersion(location: location, stored: record.version, known: version)
        }
        guard let migrate else {
            throw .migrationFailed(
                location: location, stored: record.version, reason: "no migrate: given for version \(version)")
        }
        do {
            return (try migrate(record.version, record.data), true)
        } catch {
            throw .migrationFailed(location: location, stored: record.version, reason: "\(error)")
        }
    }
}
