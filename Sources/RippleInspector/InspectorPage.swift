/// The inspector page's HTML: its style and script, with the session's JSON inlined. No network: everything the
/// page needs is in the one file.
///
/// The script lays the graph out in columns by depth (atoms first), draws it as one SVG, lists the writes (the
/// timeline; a click shows the write's tree of causes), the changes, and the atoms' values at the slider's step.
/// It builds each part as one string and sets it once, so that 10,000 writes and 5,000 nodes open fast; it
/// records how long its script took in `document.body.dataset.renderMs`, and the time since the navigation began
/// (reading and parsing the file included) in `loadMs`.
enum InspectorPage {
    static func html(data: String) -> String {
        head + "<script id=\"session\" type=\"application/json\">" + data + "</script>\n<script>" + script
            + "</script>\n</body>\n</html>\n"
    }

    private static let head = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Ripple inspector</title>
        <style>
        body { font: 13px -apple-system, Helvetica, Arial, sans-serif; margin: 0; color: #222; }
        header { padding: 8px 12px; background: #20303f; color: #fff; }
        main { display: grid; grid-template-columns: 3fr 2fr; gap: 8px; padding: 8px; }
        section { border: 1px solid #ccd; border-radius: 4px; padding: 6px; overflow: auto; max-height: 44vh; }
        h2 { font-size: 13px; margin: 0 0 4px; }
        #graph { grid-column: 1 / 3; max-height: 50vh; }
        .node text { font-size: 11px; }
        .atom ellipse { fill: #e3f0ff; stroke: #3a78c2; }
        .derivation rect, .async rect { fill: #eef8e8; stroke: #4a8a3a; }
        .effect polygon { fill: #fff2e0; stroke: #c27a1a; }
        .other rect { fill: #f4f4f4; stroke: #888; stroke-dasharray: 3 2; }
        .edge { stroke: #aab; fill: none; }
        .edge.hot { stroke: #d33; stroke-width: 2.5; }
        .entry { cursor: pointer; padding: 1px 4px; white-space: nowrap; }
        .entry.selected { background: #ffe9a8; }
        pre { margin: 0; font: 12px Menlo, monospace; }
        table { border-collapse: collapse; } td { padding: 0 8px 0 0; white-space: nowrap; }
        </style>
        </head>
        <body>
        <header>Ripple inspector: <span id="summary"></span></header>
        <main>
        <section id="graph"><h2>Graph</h2><svg id="picture"></svg></section>
        <section><h2>Timeline (writes)</h2><div id="timeline"></div></section>
        <section><h2>Causes of the selected write</h2><pre id="tree"></pre></section>
        <section><h2>Change log</h2><table id="changes"></table></section>
        <section><h2>Atoms at step <span id="step-number">0</span></h2>
        <input id="step" type="range" min="0" value="0" style="width: 100%"><table id="atoms"></table></section>
        </main>

        """

    private static let script = #"""
        "use strict";
        const started = performance.now();
        const session = JSON.parse(document.getElementById("session").textContent);
        const nodes = session.nodes, edges = session.edges, events = session.events;
        const entities = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"};
        const escape = (text) => String(text).replace(/[&<>"]/g, (c) => entities[c]);
        const writes = [];
        events.forEach((event, index) => { if (event.kind === "write") writes.push(index); });
        const children = events.map(() => []);
        events.forEach((event, index) => { if (event.parent >= 0) children[event.parent].push(index); });
        const rootOf = (index) => { while (events[index].parent >= 0) index = events[index].parent; return index; };

        // Layout: a node's column is one more than the deepest node it reads (atoms in column 0).
        const reads = nodes.map(() => []);
        edges.forEach(([from, to]) => reads[to].push(from));
        const depth = new Array(nodes.length).fill(-1);
        for (let start = 0; start < nodes.length; start++) {
            if (depth[start] >= 0) continue;
            const stack = [start], onStack = new Set([start]);
            while (stack.length) {
                const top = stack[stack.length - 1];
                const pending = reads[top].find((read) => depth[read] < 0 && !onStack.has(read));
                if (pending !== undefined) { stack.push(pending); onStack.add(pending); continue; }
                depth[top] = reads[top].reduce((deepest, read) => Math.max(deepest, depth[read] + 1), 0);
                stack.pop(); onStack.delete(top);
            }
        }
        const rows = [], x = [], y = [];
        nodes.forEach((node, index) => {
            const column = depth[index];
            rows[column] = (rows[column] || 0) + 1;
            x[index] = 20 + column * 200; y[index] = 10 + (rows[column] - 1) * 44;
        });

        // The last write's tree: every node it reached; an edge between two of them is highlighted.
        const reached = new Set();
        if (writes.length) {
            const pending = [writes[writes.length - 1]];
            while (pending.length) {
                const index = pending.pop();
                if (events[index].node >= 0) reached.add(events[index].node);
                pending.push(...children[index]);
            }
        }
        const shape = (kind) => kind === "atom" ? "atom" : kind === "derivation" ? "derivation"
            : kind === "async derivation" ? "async" : kind === "effect" ? "effect" : "other";
        const parts = [];
        edges.forEach(([from, to]) => {
            const hot = reached.has(from) && reached.has(to) ? " hot" : "";
            parts.push(`<path class="edge${hot}" d="M${x[from] + 160},${y[from] + 16} L${x[to]},${y[to] + 16}"/>`);
        });
        nodes.forEach((node, index) => {
            const kind = shape(node.kind), left = x[index], top = y[index];
            const outline = kind === "atom" ? `<ellipse cx="${left + 80}" cy="${top + 16}" rx="80" ry="16"/>`
                : kind === "effect" ? `<polygon points="${left + 10},${top} ${left + 150},${top} `
                    + `${left + 160},${top + 16} ${left + 150},${top + 32} `
                    + `${left + 10},${top + 32} ${left},${top + 16}"/>`
                : `<rect x="${left}" y="${top}" width="160" height="32" rx="3"/>`;
            const cut = node.value == null || node.value.length <= 24 ? node.value : node.value.slice(0, 23) + "…";
            const value = cut == null ? node.kind : `${node.kind} = ${cut}`;
            parts.push(`<g class="node ${kind}" data-index="${index}">`
                + `<title>${escape(node.site || node.label)}</title>${outline}`
                + `<text x="${left + 80}" y="${top + 13}" text-anchor="middle">${escape(node.label)}</text>`
                + `<text x="${left + 80}" y="${top + 26}" text-anchor="middle" class="value">`
                + `${escape(value)}</text></g>`);
        });
        const picture = document.getElementById("picture");
        picture.setAttribute("width", 40 + rows.length * 200);
        picture.setAttribute("height", 20 + Math.max(1, ...rows.map((count) => count || 0)) * 44);
        picture.innerHTML = parts.join("");

        // The timeline: one entry per write; a click shows the tree of causes of its root.
        document.getElementById("timeline").innerHTML = writes.map((index, number) =>
            `<div class="entry" data-write="${number}">${number + 1}. ${escape(events[index].line)}</div>`).join("");
        const drawTree = (index, prefix, branch, lines) => {
            lines.push(prefix + branch + events[index].line);
            const inner = prefix + (branch === "├ " ? "│ " : branch === "" ? "" : "  ");
            const hidden = (child) => events[child].kind === "commit" && events[child].changed;
            const shown = children[index].filter((child) => !hidden(child));
            shown.forEach((child, position) =>
                drawTree(child, inner, position === shown.length - 1 ? "└ " : "├ ", lines));
            return lines;
        };
        const select = (number) => {
            document.querySelectorAll(".entry.selected").forEach((entry) => entry.classList.remove("selected"));
            const entry = document.querySelector(`.entry[data-write="${number}"]`);
            if (entry) entry.classList.add("selected");
            document.getElementById("tree").textContent = drawTree(rootOf(writes[number]), "", "", []).join("\n");
        };
        document.getElementById("timeline").addEventListener("click", (click) => {
            const entry = click.target.closest(".entry");
            if (entry) select(Number(entry.dataset.write));
        });

        // The change log: every write that changed its atom's value.
        document.getElementById("changes").innerHTML = writes
            .filter((index) => events[index].previous !== events[index].value)
            .map((index) => `<tr><td>${escape(events[index].label)}</td>`
                + `<td>${escape(events[index].previous ?? "…")} → `
                + `${escape(events[index].value ?? "…")}</td></tr>`)
            .join("");

        // The slider: each atom's value after the first `step` writes, from the recorded writes.
        const atoms = [];
        nodes.forEach((node, index) => { if (node.kind === "atom") atoms.push(index); });
        const initial = new Map(atoms.map((index) => [index, nodes[index].value]));
        for (let number = writes.length - 1; number >= 0; number--) {
            const write = events[writes[number]];
            if (write.node >= 0) initial.set(write.node, write.previous);
        }
        const slider = document.getElementById("step");
        slider.max = writes.length;
        const showStep = (step) => {
            const values = new Map(initial);
            for (let number = 0; number < step; number++) {
                const write = events[writes[number]];
                if (write.node >= 0) values.set(write.node, write.value);
            }
            document.getElementById("step-number").textContent = step;
            document.getElementById("atoms").innerHTML = atoms.map((index) =>
                `<tr data-atom="${escape(nodes[index].label)}"><td>${escape(nodes[index].label)}</td>`
                + `<td class="value">${escape(values.get(index) ?? "…")}</td></tr>`).join("");
            if (step > 0) select(step - 1);
        };
        slider.addEventListener("input", () => showStep(Number(slider.value)));
        const asked = /step=(\d+)/.exec(location.hash);
        const step = asked ? Math.min(Number(asked[1]), writes.length) : writes.length;
        slider.value = step;
        showStep(step);
        document.getElementById("summary").textContent =
            `${nodes.length} nodes, ${edges.length} edges, ${writes.length} writes`;
        document.body.dataset.renderMs = (performance.now() - started).toFixed(1);
        document.body.dataset.loadMs = performance.now().toFixed(1);  // since the navigation began
        """#
}
