/*
 * grid.c: a small spreadsheet on Ripple's C engine.
 *
 * Every cell is a node: a number (or an empty cell) is a source, a formula
 * such as `=SUM(A1:A3)` or `=IF(B1>1, A1, A2)` is a computed that evaluates
 * its text, reading the cells it names through rp_node_read. The engine
 * records exactly what each evaluation read, so an edit re-evaluates only the
 * formulas that depend on it, each at most once, after everything it reads;
 * a formula whose result did not change stops the edit there; an IF depends
 * only on the branch it took. An effect watches one cell and logs each change.
 *
 * Formulas: integers, cell names (A1..C4), + - * / and parentheses, one
 * comparison (< > =, giving 1 or 0), SUM(X1:Y2) and IF(cond, then, else).
 * Errors are values (#DIV/0!, #REF!, #SYNTAX!) that flow into the formulas
 * that read them; a formula that reads itself shows #CYCLE!, from the
 * engine's RP_ECYCLE.
 *
 * Build against an installed library (scripts/install-c PREFIX; then
 * PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, and LD_LIBRARY_PATH=PREFIX/lib unless
 * PREFIX/lib is on the loader's path):
 *   cc grid.c $(pkg-config --cflags --libs ripple) -o grid && ./grid
 *
 * After every edit the program renders the sheet and compares it, the
 * formulas evaluated and the effect's log with the exact expected text;
 * it prints `N passed, N failed` and exits non-zero on a mismatch.
 */
#include <ripple.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 3 /* A..C */
#define ROWS 4 /* 1..4 */

/* A cell's value: a number, or an error name. */
typedef struct value {
    long number;
    const char *error; /* NULL for a number */
} value_t;

typedef struct cell {
    char name[16];
    char text[48];  /* what the user typed: "", "15" or "=A1*2" */
    rp_node_t node; /* a source for numbers and empty cells, a computed for formulas */
    value_t value;  /* a source's value, or a formula's last result */
    bool evaluated; /* a formula has a result */
} cell_t;

typedef struct sheet {
    rp_graph_t *graph;
    cell_t cells[ROWS][COLS];
    cell_t *watched; /* the cell the effect watches */
    char log[256];       /* what the effect printed since the last check */
    char evaluations[256]; /* the formulas evaluated since the last check, in order */
} sheet_t;

static int passed, failed;

static void check(rp_status_t status, const char *call) {
    if (status != RP_OK) {
        fprintf(stderr, "%s: %s\n", call, rp_status_string(status));
        exit(1);
    }
}

static cell_t *cell_named(sheet_t *sheet, const char *name) {
    int col = toupper((unsigned char)name[0]) - 'A';
    int row = atoi(name + 1) - 1;
    if (col < 0 || col >= COLS || row < 0 || row >= ROWS) return NULL;
    return &sheet->cells[row][col];
}

/* Reads a cell for its current value, as the engine wants: announce the read
 * (which brings a formula up to date and records the dependency), then look
 * at the value. The status is RP_ECYCLE when the cell is on a cycle. */
static rp_status_t read_cell(sheet_t *sheet, cell_t *cell, value_t *out) {
    rp_status_t status = rp_node_read(sheet->graph, cell->node);
    if (status == RP_OK) *out = cell->value;
    return status;
}

/* ---------------------------------------------------------------- formulas */

/* A recursive-descent evaluator over the formula text. With `live` false it
 * only parses (the branch an IF does not take), so it reads no cells. */
typedef struct evaluator {
    sheet_t *sheet;
    const char *at;
    const char *error;  /* the first error value met */
    rp_status_t status; /* the first engine failure (a cycle) */
} evaluator_t;

static long comparison(evaluator_t *e, bool live);

static void fail(evaluator_t *e, const char *error) {
    if (e->error == NULL) e->error = error;
}

static bool accept(evaluator_t *e, char c) {
    while (isspace((unsigned char)*e->at)) e->at++;
    if (*e->at != c) return false;
    e->at++;
    return true;
}

static void expect_char(evaluator_t *e, char c) {
    if (!accept(e, c)) fail(e, "#SYNTAX!");
}

/* A cell name such as B3; NULL (and #REF!) outside the sheet. */
static cell_t *reference(evaluator_t *e) {
    while (isspace((unsigned char)*e->at)) e->at++;
    char name[8] = {0};
    size_t n = 0;
    if (isalpha((unsigned char)*e->at)) name[n++] = *e->at++;
    while (isdigit((unsigned char)*e->at) && n < sizeof name - 1) name[n++] = *e->at++;
    if (n < 2) {
        fail(e, "#SYNTAX!");
        return NULL;
    }
    cell_t *cell = cell_named(e->sheet, name);
    if (cell == NULL) fail(e, "#REF!");
    return cell;
}

static long cell_number(evaluator_t *e, cell_t *cell, bool live) {
    if (!live || cell == NULL) return 0;
    value_t value = {0};
    rp_status_t status = read_cell(e->sheet, cell, &value);
    if (status != RP_OK) {
        if (e->status == RP_OK) e->status = status;
        return 0;
    }
    if (value.error) fail(e, value.error);
    return value.number;
}

static bool keyword(evaluator_t *e, const char *word) {
    while (isspace((unsigned char)*e->at)) e->at++;
    size_t n = strlen(word);
    if (strncmp(e->at, word, n) != 0 || e->at[n] != '(') return false;
    e->at += n + 1;
    return true;
}

static long primary(evaluator_t *e, bool live) {
    while (isspace((unsigned char)*e->at)) e->at++;
    if (accept(e, '-')) return -primary(e, live);
    if (accept(e, '(')) {
        long value = comparison(e, live);
        expect_char(e, ')');
        return value;
    }
    if (isdigit((unsigned char)*e->at)) return strtol(e->at, (char **)&e->at, 10);
    if (keyword(e, "SUM")) {
        cell_t *from = reference(e);
        expect_char(e, ':');
        cell_t *to = reference(e);
        expect_char(e, ')');
        if (from == NULL || to == NULL) return 0;
        /* The rectangle between the two corners, row by row. */
        cell_t *first = &e->sheet->cells[0][0];
        long a = from - first, b = to - first;
        long top = a / COLS, bottom = b / COLS, left = a % COLS, right = b % COLS;
        if (top > bottom) top = b / COLS, bottom = a / COLS;
        if (left > right) left = b % COLS, right = a % COLS;
        long sum = 0;
        for (long row = top; row <= bottom; row++) {
            for (long col = left; col <= right; col++) sum += cell_number(e, &e->sheet->cells[row][col], live);
        }
        return sum;
    }
    if (keyword(e, "IF")) {
        long condition = comparison(e, live);
        expect_char(e, ',');
        long then = comparison(e, live && condition != 0);
        expect_char(e, ',');
        long otherwise = comparison(e, live && condition == 0);
        expect_char(e, ')');
        return condition ? then : otherwise;
    }
    return cell_number(e, reference(e), live);
}

static long product(evaluator_t *e, bool live) {
    long value = primary(e, live);
    for (;;) {
        if (accept(e, '*')) {
            value *= primary(e, live);
        } else if (accept(e, '/')) {
            long divisor = primary(e, live);
            if (divisor == 0) {
                if (live) fail(e, "#DIV/0!");
                value = 0;
            } else {
                value /= divisor;
            }
        } else {
            return value;
        }
    }
}

static long sum(evaluator_t *e, bool live) {
    long value = product(e, live);
    for (;;) {
        if (accept(e, '+')) {
            value += product(e, live);
        } else if (accept(e, '-')) {
            value -= product(e, live);
        } else {
            return value;
        }
    }
}

static long comparison(evaluator_t *e, bool live) {
    long left = sum(e, live);
    if (accept(e, '<')) return left < sum(e, live);
    if (accept(e, '>')) return left > sum(e, live);
    if (accept(e, '=')) return left == sum(e, live);
    return left;
}

static bool same_node(rp_node_t a, rp_node_t b) {
    return a.slot == b.slot && a.generation == b.generation && a.graph_tag == b.graph_tag;
}

static bool same_value(value_t a, value_t b) {
    if (a.error || b.error) return a.error == b.error;
    return a.number == b.number;
}

/* The engine's compute callback: evaluate the formula of the cell in `data`. */
static rp_status_t compute(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed) {
    (void)graph, (void)node;
    sheet_t *sheet = host;
    cell_t *cell = data;
    evaluator_t e = {.sheet = sheet, .at = cell->text + 1 /* after '=' */};
    long number = comparison(&e, true);
    while (isspace((unsigned char)*e.at)) e.at++;
    if (*e.at != '\0') fail(&e, "#SYNTAX!");
    /* An engine failure goes back to whoever read this cell; the engine keeps
     * the cell dirty, so it evaluates again on the next read. */
    if (e.status != RP_OK) return e.status;
    value_t next = e.error ? (value_t){0, e.error} : (value_t){number, NULL};
    *changed = !cell->evaluated || !same_value(next, cell->value);
    cell->value = next;
    cell->evaluated = true;
    size_t used = strlen(sheet->evaluations);
    snprintf(sheet->evaluations + used, sizeof sheet->evaluations - used, "%s ", cell->name);
    return RP_OK;
}

/* -------------------------------------------------------------- the sheet */

/* The effect's body: read the watched cell and log its value. */
static void watch(void *host, rp_graph_t *graph, rp_node_t node, void *data) {
    (void)graph, (void)node, (void)data;
    sheet_t *sheet = host;
    value_t value = {0};
    rp_status_t status = read_cell(sheet, sheet->watched, &value);
    size_t used = strlen(sheet->log);
    if (status != RP_OK) {
        snprintf(sheet->log + used, sizeof sheet->log - used, "%s = %s; ", sheet->watched->name,
                 rp_status_string(status));
    } else if (value.error) {
        snprintf(sheet->log + used, sizeof sheet->log - used, "%s = %s; ", sheet->watched->name, value.error);
    } else {
        snprintf(sheet->log + used, sizeof sheet->log - used, "%s = %ld; ", sheet->watched->name, value.number);
    }
}

/* Puts `text` into a cell. A number written over a number is a source write
 * (skipped when equal). Anything else replaces the cell's node: the new node
 * is created and takes the cell's place, then the old one is disposed, which
 * marks its readers as changed; they re-read the cell by name and find the
 * new node. The batch makes effects run once, after the swap. */
static void edit(sheet_t *sheet, const char *name, const char *text) {
    cell_t *cell = cell_named(sheet, name);
    bool formula = text[0] == '=';
    if (!formula && cell->text[0] != '=' && cell->node.generation != 0) {
        long number = strtol(text, NULL, 10);
        snprintf(cell->text, sizeof cell->text, "%s", text);
        if (number == cell->value.number) return;
        cell->value.number = number;
        check(rp_source_set(sheet->graph, cell->node), "write a number");
        return;
    }
    check(rp_batch_begin(sheet->graph), "batch begin");
    rp_node_t old = cell->node;
    snprintf(cell->text, sizeof cell->text, "%s", text);
    cell->value = (value_t){formula ? 0 : strtol(text, NULL, 10), NULL};
    cell->evaluated = false;
    check(rp_node_create(sheet->graph, formula ? RP_KIND_COMPUTED : RP_KIND_SOURCE, cell, &cell->node), "create cell");
    if (old.generation != 0) check(rp_node_dispose(sheet->graph, old), "dispose old cell");
    check(rp_batch_end(sheet->graph), "batch end");
}

/* Renders the sheet as text, reading every cell (so formulas evaluate). */
static void render(sheet_t *sheet, char *out, size_t size) {
    size_t used = (size_t)snprintf(out, size, "  %8s%8s%8s\n", "A", "B", "C");
    for (int row = 0; row < ROWS; row++) {
        used += (size_t)snprintf(out + used, size - used, "%d ", row + 1);
        for (int col = 0; col < COLS; col++) {
            cell_t *cell = &sheet->cells[row][col];
            value_t value = {0};
            rp_status_t status = read_cell(sheet, cell, &value);
            char shown[16];
            if (status == RP_ECYCLE) {
                snprintf(shown, sizeof shown, "#CYCLE!");
            } else if (status != RP_OK) {
                check(status, "read cell");
            } else if (cell->text[0] == '\0') {
                shown[0] = '\0';
            } else if (value.error) {
                snprintf(shown, sizeof shown, "%s", value.error);
            } else {
                snprintf(shown, sizeof shown, "%ld", value.number);
            }
            used += (size_t)snprintf(out + used, size - used, "%8s", shown);
        }
        used += (size_t)snprintf(out + used, size - used, "\n");
    }
}

/* Renders, then checks the sheet, which formulas evaluated since the last
 * check (in the order they finished) and what the effect logged. */
static void expect_sheet(sheet_t *sheet, const char *step, const char *grid, const char *evaluated, const char *log) {
    char shown[512];
    render(sheet, shown, sizeof shown);
    printf("%s\n%s  evaluated: %s\n  effect: %s\n\n", step, shown, sheet->evaluations, sheet->log);
    bool ok = strcmp(shown, grid) == 0 && strcmp(sheet->evaluations, evaluated) == 0 && strcmp(sheet->log, log) == 0;
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL: %s: expected\n%s  evaluated: %s\n  effect: %s\n\n", step, grid, evaluated, log);
    }
    sheet->log[0] = '\0';
    sheet->evaluations[0] = '\0';
}

int main(void) {
    static sheet_t sheet;
    rp_graph_config_t config = {.callbacks = {.host = &sheet, .compute = compute, .run = watch}};
    check(rp_graph_create(&config, &sheet.graph), "create graph");
    for (int row = 0; row < ROWS; row++) {
        for (int col = 0; col < COLS; col++) {
            cell_t *cell = &sheet.cells[row][col];
            snprintf(cell->name, sizeof cell->name, "%c%d", 'A' + col, row + 1);
            edit(&sheet, cell->name, ""); /* an empty cell: a source holding 0 */
        }
    }

    edit(&sheet, "A1", "10");
    edit(&sheet, "A2", "20");
    edit(&sheet, "A3", "30");
    edit(&sheet, "A4", "=SUM(A1:A3)");
    edit(&sheet, "B1", "2");
    edit(&sheet, "B2", "=A4 * B1");
    edit(&sheet, "B3", "=IF(B1 > 1, A1, A2)");
    edit(&sheet, "B4", "=B2 / (A1 - 10)");
    rp_node_t watcher;
    sheet.watched = cell_named(&sheet, "B2");
    check(rp_node_create(sheet.graph, RP_KIND_EFFECT, NULL, &watcher), "create watcher"); /* runs once now */
    expect_sheet(&sheet, "initial sheet",
                 "         A       B       C\n"
                 "1       10       2        \n"
                 "2       20     120        \n"
                 "3       30      10        \n"
                 "4       60 #DIV/0!        \n",
                 "A4 B2 B3 B4 ", "B2 = 120; ");

    edit(&sheet, "A1", "15");
    expect_sheet(&sheet, "A1 = 15: every formula reads it, directly or not",
                 "         A       B       C\n"
                 "1       15       2        \n"
                 "2       20     130        \n"
                 "3       30      15        \n"
                 "4       65      26        \n",
                 "A4 B2 B3 B4 ", "B2 = 130; ");

    check(rp_batch_begin(sheet.graph), "batch begin");
    edit(&sheet, "A2", "25");
    edit(&sheet, "A3", "25");
    check(rp_batch_end(sheet.graph), "batch end");
    expect_sheet(&sheet, "A2 = 25, A3 = 25 in a batch: the sum is still 65, so nothing below it evaluates",
                 "         A       B       C\n"
                 "1       15       2        \n"
                 "2       25     130        \n"
                 "3       25      15        \n"
                 "4       65      26        \n",
                 "A4 ", "");

    edit(&sheet, "B1", "1");
    expect_sheet(&sheet, "B1 = 1: B3's IF now takes A2",
                 "         A       B       C\n"
                 "1       15       1        \n"
                 "2       25      65        \n"
                 "3       25      25        \n"
                 "4       65      13        \n",
                 "B2 B3 B4 ", "B2 = 65; ");

    edit(&sheet, "A1", "16");
    expect_sheet(&sheet, "A1 = 16: B3 no longer reads A1, so it does not evaluate",
                 "         A       B       C\n"
                 "1       16       1        \n"
                 "2       25      66        \n"
                 "3       25      25        \n"
                 "4       66      11        \n",
                 "A4 B2 B4 ", "B2 = 66; ");

    edit(&sheet, "B2", "=A4 * 10");
    expect_sheet(&sheet, "B2 = A4 * 10: a new formula replaces the cell's node",
                 "         A       B       C\n"
                 "1       16       1        \n"
                 "2       25     660        \n"
                 "3       25      25        \n"
                 "4       66     110        \n",
                 "B2 B4 ", "B2 = 660; ");

    edit(&sheet, "C1", "=C2 + 1");
    edit(&sheet, "C2", "=C1 * 2");
    edit(&sheet, "C3", "=A9");
    edit(&sheet, "C4", "=C3 + 1");
    value_t unused;
    rp_status_t status = read_cell(&sheet, cell_named(&sheet, "C1"), &unused);
    rp_node_t cycle[4];
    size_t length = 0;
    check(rp_graph_diagnostic(sheet.graph, cycle, 4, &length), "diagnostic");
    printf("reading C1: %s; the cycle:", rp_status_string(status));
    for (size_t i = 0; i < length && i < 4; i++) {
        void *data = NULL;
        check(rp_node_data(sheet.graph, cycle[i], &data), "node data");
        printf(" %s ->", ((cell_t *)data)->name);
    }
    printf(" C1\n");
    bool cycle_ok = status == RP_ECYCLE && length == 2 && same_node(cycle[0], cell_named(&sheet, "C1")->node) &&
                    same_node(cycle[1], cell_named(&sheet, "C2")->node);
    passed += cycle_ok;
    failed += !cycle_ok;
    if (!cycle_ok) printf("FAIL: the cycle is C1 -> C2 -> C1\n");
    expect_sheet(&sheet, "C1 = C2 + 1, C2 = C1 * 2: a cycle; C3 names a cell outside the sheet",
                 "         A       B       C\n"
                 "1       16       1 #CYCLE!\n"
                 "2       25     660 #CYCLE!\n"
                 "3       25      25   #REF!\n"
                 "4       66     110   #REF!\n",
                 "C3 C4 ", "");

    edit(&sheet, "C2", "5");
    edit(&sheet, "C3", "=C1 + C2");
    expect_sheet(&sheet, "C2 = 5 breaks the cycle",
                 "         A       B       C\n"
                 "1       16       1       6\n"
                 "2       25     660       5\n"
                 "3       25      25      11\n"
                 "4       66     110      12\n",
                 "C1 C3 C4 ", "");

    check(rp_node_dispose(sheet.graph, watcher), "dispose watcher");
    edit(&sheet, "A1", "1");
    expect_sheet(&sheet, "A1 = 1 with the watcher gone: formulas evaluate only when rendered",
                 "         A       B       C\n"
                 "1        1       1       6\n"
                 "2       25     510       5\n"
                 "3       25      25      11\n"
                 "4       51     -56      12\n",
                 "A4 B2 B4 ", "");

    char message[256];
    check(_rp_graph_check(sheet.graph, message, sizeof message), message);
    check(rp_graph_destroy(sheet.graph), "destroy graph");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
