// The order of a keyed collection, held out of line in chunks: the order atom's value is an array of chunks, each an
// array of places, so that an insert, a removal or a move copies the array of chunks and the one or two chunks it
// changes (the value before stays whole for snapshots, undo and the atom's commit), not every place. Chunks hold
// about the square root of the count (at least `minimumChunk`): an edit costs O(√n) copies and look-ups, not O(n).
//
// Each chunk has a tag that no other chunk of the collection ever has; the collection's table of rows keeps, per id,
// the tag of the chunk it was last placed in: a hint that finds an element's place without a walk through the whole
// order. A hint is checked (the chunk must hold that element's node) and, when wrong (after a snapshot or an undo
// restored an older order), the walk finds the place: the hints make look-ups fast, never right or wrong.

extension KeyedCollection {
    /// A run of consecutive places in the order, with its tag.
    @usableFromInline struct Chunk: Sendable {
        @usableFromInline var places: ContiguousArray<Place>
        /// Unique among the collection's chunks for the collection's life (a split gives the new half a new tag).
        @usableFromInline let tag: Int

        @usableFromInline init(places: ContiguousArray<Place>, tag: Int) {
            self.places = places
            self.tag = tag
        }
    }

    /// The places in order, in chunks, and the revision of the edit that wrote them (which tells the collection's
    /// own writes from a snapshot's restore).
    @usableFromInline struct Order: Sendable {
        @usableFromInline var chunks: ContiguousArray<Chunk>
        /// The number of places, the sum of the chunks' counts.
        @usableFromInline var count: Int
        @usableFromInline var revision: Int

        @usableFromInline init(chunks: ContiguousArray<Chunk>, count: Int, revision: Int) {
            self.chunks = chunks
            self.count = count
            self.revision = revision
        }

        /// Calls `body` with each place, in order.
        @inlinable func forEachPlace(_ body: (Place) throws -> Void) rethrows {
            for chunk in chunks {
                for place in chunk.places { try body(place) }
            }
        }

        /// The ids in order.
        @usableFromInline var ids: [ID] {
            var ids: [ID] = []
            ids.reserveCapacity(count)
            for chunk in chunks {
                for place in chunk.places { ids.append(place.id) }
            }
            return ids
        }
    }

    /// Where a place is: its chunk's index in the order, its index in that chunk, and its position in the order.
    @usableFromInline struct Location {
        @usableFromInline let chunk: Int
        @usableFromInline let offset: Int
        @usableFromInline let position: Int

        @inlinable init(chunk: Int, offset: Int, position: Int) {
            self.chunk = chunk
            self.offset = offset
            self.position = position
        }
    }

    /// The size chunks aim at for `count` places: a split makes two of this size, and two neighbours that fit in one
    /// merge.
    @inlinable
    func chunkSize(forCount count: Int) -> Int {
        max(minimumChunk, Int(Double(count).squareRoot()))
    }

    /// A new chunk tag; in a batch of `runtime` (or in `init`, before the collection is shared).
    @inlinable
    func newChunkTag() -> Int {
        lastChunkTag += 1
        return lastChunkTag
    }

    /// The order of `places`, in chunks of the aimed-at size, with the hints of their ids set.
    func makeOrder(_ places: ContiguousArray<Place>, revision: Int) -> Order {
        let size = chunkSize(forCount: places.count)
        var chunks = ContiguousArray<Chunk>()
        chunks.reserveCapacity(places.count / size + 1)
        var start = 0
        while start < places.count {
            let end = min(start + size, places.count)
            chunks.append(Chunk(places: ContiguousArray(places[start..<end]), tag: newChunkTag()))
            start = end
        }
        let order = Order(chunks: chunks, count: places.count, revision: revision)
        noteChunks(of: order)
        return order
    }

    /// Sets the hint of every id in `order` (after a restore, and when the order is made).
    func noteChunks(of order: Order) {
        lock.withLock {
            for chunk in order.chunks {
                for place in chunk.places { rows[place.id]?.chunk = chunk.tag }
            }
        }
    }

    /// Sets the hint of the ids of `places` to `tag`.
    @inlinable
    func note(_ places: some Sequence<Place>, inChunk tag: Int) {
        lock.withLock {
            for place in places { rows[place.id]?.chunk = tag }
        }
    }

    /// Where the place of `row` (the node of `id`) is in `order`, or nil when the order does not hold it: the chunk
    /// the hint names, checked; a walk through the order when the hint is wrong.
    @inlinable
    func locate(_ id: ID, row: Row, in order: Order) -> Location? {
        let hint = lock.withLock { rows[id]?.chunk }
        var position = 0
        if let hint {
            for (index, chunk) in order.chunks.enumerated() {
                if chunk.tag == hint {
                    if let offset = chunk.places.firstIndex(where: { $0.row === row }) {
                        return Location(chunk: index, offset: offset, position: position + offset)
                    }
                    break
                }
                position += chunk.places.count
            }
        }
        position = 0
        for (index, chunk) in order.chunks.enumerated() {
            if let offset = chunk.places.firstIndex(where: { $0.row === row }) {
                return Location(chunk: index, offset: offset, position: position + offset)
            }
            position += chunk.places.count
        }
        return nil
    }

    /// The position of the element with `id` in `order`, or nil.
    @inlinable
    func position(of id: ID, in order: Order) -> Int? {
        guard let row = row(for: id) else { return nil }
        return locate(id, row: row, in: order)?.position
    }

    /// Inserts `place` at `position` (0...count) of `order`, splitting its chunk once it holds twice the aimed-at
    /// size.
    @inlinable
    func insertPlace(_ place: Place, at position: Int, into order: inout Order) {
        precondition(
            position >= 0 && position <= order.count,
            "Ripple: \(label).insert(_:at: \(position)): the index is outside 0...\(order.count).")
        if order.chunks.isEmpty {
            order.chunks.append(Chunk(places: [place], tag: newChunkTag()))
            order.count = 1
            note(CollectionOfOne(place), inChunk: order.chunks[0].tag)
            return
        }
        // The chunk that holds the place before `position` (the first chunk for position 0), so that an append goes
        // to the end of the last chunk.
        var index = 0
        var offset = position
        while index < order.chunks.count - 1 && offset > order.chunks[index].places.count {
            offset -= order.chunks[index].places.count
            index += 1
        }
        if offset > order.chunks[index].places.count { offset = order.chunks[index].places.count }
        order.chunks[index].places.insert(place, at: offset)
        order.count += 1
        note(CollectionOfOne(place), inChunk: order.chunks[index].tag)
        let size = chunkSize(forCount: order.count)
        guard order.chunks[index].places.count > 2 * size else { return }
        let half = order.chunks[index].places.count / 2
        let moved = ContiguousArray(order.chunks[index].places[half...])
        order.chunks[index].places.removeSubrange(half...)
        let tag = newChunkTag()
        order.chunks.insert(Chunk(places: moved, tag: tag), at: index + 1)
        note(moved, inChunk: tag)
    }

    /// Removes the place at `location` from `order` and returns it; merges its chunk with a neighbour when both fit
    /// in the aimed-at size, and drops an empty chunk.
    @inlinable @discardableResult
    func removePlace(at location: Location, from order: inout Order) -> Place {
        let place = order.chunks[location.chunk].places.remove(at: location.offset)
        order.count -= 1
        let index = location.chunk
        if order.chunks[index].places.isEmpty {
            order.chunks.remove(at: index)
            return place
        }
        let size = chunkSize(forCount: order.count)
        if index + 1 < order.chunks.count,
            order.chunks[index].places.count + order.chunks[index + 1].places.count <= size
        {
            merge(index + 1, into: index, of: &order)
        } else if index > 0,
            order.chunks[index - 1].places.count + order.chunks[index].places.count <= size
        {
            merge(index, into: index - 1, of: &order)
        }
        return place
    }

    /// Appends chunk `source` to chunk `target` (the one before it) and drops it.
    @inlinable
    func merge(_ source: Int, into target: Int, of order: inout Order) {
        let moved = order.chunks.remove(at: source).places
        order.chunks[target].places.append(contentsOf: moved)
        note(moved, inChunk: order.chunks[target].tag)
    }
}
