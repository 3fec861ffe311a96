import Ripple

// The app's state, declared once: each runtime (the app's, or each test's `withIsolatedRuntime`) has its own
// instances, so tests run in parallel without sharing a list.

/// Every item, in the order they were added.
public let todos = declare.atom(keepAlive: true) { [Todo]() }

/// The filter the user picked.
public let filter = declare.atom(keepAlive: true) { Filter.all }

/// The items the list shows: recomputed only when `todos` or `filter` changes.
public let visibleTodos = declare.derived { todos.value.filter(filter.value.includes) }

/// "1 item left", "3 items left": equal values stop here, so a view showing it re-renders only when it changes.
public let summary = declare.derived { () -> String in
    let left = todos.value.count { !$0.isDone }
    return left == 1 ? "1 item left" : "\(left) items left"
}
