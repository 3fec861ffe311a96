extension Store {
    /// Waits until the store has no work in flight: every run has ended, including the runs started by actions
    /// that runs sent meanwhile.
    ///
    /// For integration tests that drive a real store, and for shutdown: send what must be done, then await the
    /// work it started. A `TestStore` does this in its own `finish()`, which also checks what the work sent. A
    /// scoped store (``scope(state:action:label:)``) waits for its root store's work.
    ///
    /// ```swift
    /// store.send(.refresh)            // starts a run that sends .loaded(...)
    /// await store.finish()
    /// print(store.items.count)        // the run's .loaded was reduced
    /// ```
    ///
    /// Threading: from any task. It returns once no run is in flight at one moment; work started afterwards (by a
    /// later `send` from another thread) is not waited for. Runs that never end (a loop, an infinite stream) make
    /// it wait for ever: cancel them first (`Work.cancel(id:)`). Cancelling the awaiting task ends the wait when the run it
    /// is awaiting at that moment ends; the other runs go on.
    public func finish() async {
        if let parentLink { return await parentLink.finish() }
        while !Task.isCancelled {
            let (tasks, settling) = outstandingWorkForFinish()
            if tasks.isEmpty && !settling { return }
            for task in tasks {
                await task.value
                if Task.isCancelled { return }
            }
            // A reduction in progress on another thread, or a run whose task is being created, finishes within
            // that thread's `send`: let it run, then look again.
            if tasks.isEmpty { await Task.yield() }
        }
    }
}
