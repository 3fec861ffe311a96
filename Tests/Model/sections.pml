/*
 * sections.pml: the protocol of Sources/CRipple/sections.c, for spin.
 *
 * What is modelled (names as in sections.c):
 *   stripe[2]   reader stripes; thread i counts in stripe i % 2, so with three
 *               threads two share one (as real threads may).
 *   next, turn  the ticket lock: `next` is fetch-and-add'ed by a thread that
 *               must wait; `turn` is the ticket served, << 1, with the
 *               sleepers bit (RP_TURN_SLEEPERS) as its low bit. (The engine
 *               counts tickets in twos instead, so both words wrap together;
 *               the model never gets near a wrap, and counts in ones.)
 *   sleep       the mutex (`mutex`), and the condition variable `released`
 *               as a broadcast generation (`bcast`): a waiter records it and
 *               releases the mutex in one step, then waits for it to change.
 *               With SPURIOUS, it may also wake with no broadcast.
 *   a call      each worker makes CALLS calls; each is, by choice, a writer
 *               (rp_exclusive_acquire/release) or a reader (rp_shared_enter/
 *               exit: the fast path, or a ticket, then joining the stripe on
 *               its turn and passing the turn straight on). Spinning for the
 *               turn is a blocking guard; any wait may instead go to sleep.
 *   contents    d1, d2: a writer increments both (two stores), a reader
 *               loads both and expects them equal: a torn read.
 *   destroy     with DESTROYER, one more process runs rp_sections_try_close
 *               until it succeeds (a CAS on `next` from the served turn, then
 *               the stripes, then `next` again, then lock and unlock
 *               `sleep`). The host's side of the contract: no call starts once
 *               it began destroying (workers then skip their other calls).
 *               A call is visible from its first access on: the host's
 *               promise is taken in the same step as that access.
 *   bias        with BIAS (the default), worker 0 is the thread the graph is
 *               biased to (`bias` in sections.c), and `biased` starts ON.
 *               While it is ON, worker 0 may make a call through the bias
 *               (bias_call: announce itself in `bias_in`, check the state,
 *               then the section with no turn, or back off: a ticket, the
 *               announcement withdrawn, then as a writer). Every turn holder
 *               revokes the bias before it enters (ON -> REVOKING, wait until
 *               `bias_in` is 0, -> OFF), and a reader shares the graph only
 *               when it loads OFF before it finds no turn taken. The
 *               membarrier of the revoker (sync.h) is modelled as sequential
 *               consistency of the bias thread's announcement and load:
 *               HEAVY_BARRIER 0 lets the announcement become visible after
 *               the load instead. The destroyer checks `bias_in` in every
 *               state (BIAS_ANY_STATE 0: only while the bias is not off).
 *   `owner` and reentrancy are not modelled: only the owning thread reads
 *   the owner word for anything (its own identity), so it orders nothing.
 *   Every other call is one of these two shapes: batches, untracked
 *   sections and the async nodes' track and resolve sections
 *   (rp_async_track_begin/end, rp_async_resolve_begin/end, async.c) hold
 *   the graph exclusively from begin to end, as a writer here; the async
 *   calls add no step of their own to the protocol, nor do savepoints
 *   (savepoint.c): they open and close only inside a batch, on the thread
 *   holding it (RP_ESTATE otherwise), so they are steps of that writer.
 *
 * The memory model. Every step is sequentially consistent, except where a
 * fence of sections.c is switched off:
 *   DEKKER_FENCE 0  a reader's stripe increment may become visible after its
 *                   loads of `next` and `turn` (a store buffered past later
 *                   loads, as TSO allows and ARM too without a full barrier);
 *   RELEASE_FENCE 0 a reader's load of d2 may be performed after its stripe
 *                   decrement, and a writer's store of d2 after it passes the
 *                   turn (what aarch64 allows when leaving is fenced with
 *                   ck_pr_fence_atomic only: defect 4 of issue 15).
 *   HEAVY_BARRIER 0 the bias thread's announcement may become visible after
 *                   its load of the bias state (no membarrier on the revoker);
 * and two steps of destroy:
 *   RECHECK_NEXT 0  try_close does not load `next` again after the stripes
 *                   (a reader that moved from its stripe to a ticket in
 *                   between is then missed: the first version of the fix);
 *   BIAS_ANY_STATE 0 try_close checks the bias thread's announcement only
 *                   while the bias is not off (a bias thread that checked the
 *                   state before a revocation and announced itself after is
 *                   then missed).
 *
 * Properties (spin -a, pan without -DNP: safety):
 *   mutual exclusion   no writer (or bias thread through the bias) with a
 *                      reader or another writer inside (ghost counters inW,
 *                      inR), and no torn read;
 *   no deadlock        every process ends (invalid end states);
 *   bounded waiting    while a thread waits for its turn, no other thread
 *                      gets two turns (tickets are first come, first served),
 *                      and a writer, from its ticket to its entry, lets in at
 *                      most one fast-path reader per other thread;
 *   destroy            when try_close succeeds no worker is between the first
 *                      and the last access of a call (`inside`).
 *
 * scripts/model-check runs it: the shipped protocol must verify, and each
 * fence switched off must give an assertion violation.
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef CALLS
#define CALLS 2
#endif
#ifndef DEKKER_FENCE
#define DEKKER_FENCE 1
#endif
#ifndef RELEASE_FENCE
#define RELEASE_FENCE 1
#endif
#ifndef DESTROYER
#define DESTROYER 1
#endif
#ifndef RECHECK_NEXT
#define RECHECK_NEXT 1
#endif
#ifndef SPURIOUS
#define SPURIOUS 1
#endif
#ifndef BIAS
#define BIAS 1
#endif
#ifndef HEAVY_BARRIER
#define HEAVY_BARRIER 1
#endif
#ifndef BIAS_ANY_STATE
#define BIAS_ANY_STATE 1
#endif

#define ON 0
#define REVOKING 1
#define OFF 2

byte stripe[2];
byte biased;          /* the bias state: ON, REVOKING, OFF (worker 0 is the bias thread) */
bit bias_in;          /* worker 0's announcement (`inside` in sections.c) */
byte next;
byte turn;            /* served ticket << 1 | sleepers bit */
bit mutex;
byte bcast;
/* ghosts */
byte inW, inR;
byte d1, d2;
byte inside;          /* workers between the first and last access of a call */
bit destroying, closed;  /* the host began destroying; it succeeded */
byte turns[WORKERS];  /* turns each worker got */
byte fast_entries;    /* readers that entered on the fast path */

inline lock() { atomic { mutex == 0 -> mutex = 1 } }

/* pthread_cond_wait: release the mutex and record the generation in one step. */
inline cond_wait() {
    atomic { gen = bcast; mutex = 0 };
    if
    :: bcast != gen
#if SPURIOUS
    :: true
#endif
    fi;
    lock()
}

/* wait_for_turn(t): spin until served, or sleep (set the bit under the mutex). */
inline wait_for_turn(t) {
    if
    :: (turn >> 1) == t
    :: true ->
        lock();
        do
        :: v = turn;
           if
           :: (v >> 1) == t -> break
           :: (v >> 1) != t && (v & 1) == 0 ->
               atomic { if :: turn == v -> turn = v | 1; ok = 1 :: else -> ok = 0 fi };
               if :: ok -> cond_wait() :: else -> skip fi
           :: (v >> 1) != t && (v & 1) == 1 -> cond_wait()
           fi
        od;
        mutex = 0
    fi
}

/* pass_turn(): one CAS when no sleeper; otherwise store and broadcast under the
 * mutex. `last`: this is the caller's last access of the call. */
inline pass_turn(last) {
    v = turn;
    atomic {
        if
        :: (v & 1) == 0 && turn == v -> turn = ((v >> 1) + 1) << 1; ok = 1;
           if :: last -> inside-- :: else -> skip fi
        :: else -> ok = 0
        fi
    };
    if
    :: ok -> skip
    :: else ->
        lock();
        turn = ((v >> 1) + 1) << 1;
        bcast = (bcast + 1) % 4;
        atomic { mutex = 0; if :: last -> inside-- :: else -> skip fi }
    fi
}

/* Bounded waiting: note the others' turns when taking a ticket ... */
inline note_turns() {
    d_step {
        i = 0;
        do
        :: i < WORKERS -> seen[i] = turns[i]; i++
        :: else -> i = 0; break
        od
    }
}
/* ... and on getting the turn, none has had two since. */
inline got_turn() {
    d_step {
        i = 0;
        do
        :: i < WORKERS -> assert(i == me || turns[i] - seen[i] <= 1); i++
        :: else -> i = 0; break
        od;
        turns[me]++
    }
}

/* revoke_bias(), by a turn holder: the state to REVOKING (then, with
 * HEAVY_BARRIER, the membarrier makes the bias thread's announcement and its
 * load of the state sequentially consistent with this), wait until the bias
 * thread is not inside, the state to OFF. */
inline revoke_bias() {
    if
    :: biased == OFF
    :: biased != OFF ->
        if :: biased == ON -> biased = REVOKING :: else -> skip fi;
        bias_in == 0;
        biased = OFF
    fi
}

/* A writer on its turn (t taken): own() revokes the bias, then waits until
 * every stripe counts zero; then the section. */
inline writer_on_turn() {
    note_turns(); f0 = fast_entries;
    wait_for_turn(t);
    got_turn();
    revoke_bias();
    stripe[0] == 0;
    stripe[1] == 0;
    atomic { inW++; assert(inW == 1 && inR == 0); assert(fast_entries - f0 < WORKERS) };
    d1 = (d1 + 1) % 4;
#if RELEASE_FENCE
    d2 = (d2 + 1) % 4;
    inW--;
    pass_turn(1)
#else
    if
    :: d2 = (d2 + 1) % 4; inW--; pass_turn(1)
    :: inW--; pass_turn(0); d2 = (d2 + 1) % 4; inside--   /* the store of d2 completes late */
    fi
#endif
}

inline writer_call() {
    if
    :: atomic { !destroying -> inside++; t = next; next++ }
    :: destroying -> stopped = 1; goto call_end
    fi;
    writer_on_turn()
}

/* The bias thread's call through the bias (rp_exclusive_enter_owned): the
 * state (a load: the call has not reached the graph), the announcement (its
 * first access), the state again; RP_BIAS_ON: the section with plain accesses
 * and no turn; otherwise back off (a ticket, then the announcement withdrawn)
 * and go on as a writer. Without HEAVY_BARRIER the announcement may become
 * visible after the second load (a store buffered past a load). */
inline bias_call() {
#if HEAVY_BARRIER
    if
    :: atomic { !destroying -> inside++; bias_in = 1 }
    :: destroying -> stopped = 1; goto call_end
    fi;
    v = biased;
#else
    if
    :: atomic { !destroying -> inside++; bias_in = 1 }; v = biased
    :: atomic { !destroying -> inside++; v = biased }; bias_in = 1
    :: destroying -> stopped = 1; goto call_end
    fi;
#endif
    if
    :: v == ON ->
        atomic { inW++; assert(inW == 1 && inR == 0) };
        d1 = (d1 + 1) % 4;
        d2 = (d2 + 1) % 4;
        inW--;
        atomic { bias_in = 0; inside-- }
    :: v != ON ->
        atomic { t = next; next++ };
        bias_in = 0;
        writer_on_turn()
    fi
}

inline reader_call() {
    s = me % 2;
#if DEKKER_FENCE
    if
    :: atomic { !destroying -> inside++; stripe[s]++ }
    :: destroying -> stopped = 1; goto call_end
    fi;
    b = biased;
    n = next;
    v = turn;
#else
    if
    :: atomic { !destroying -> inside++; stripe[s]++ }; b = biased; n = next; v = turn
    :: atomic { !destroying -> inside++; b = biased }; n = next; v = turn;
       stripe[s]++   /* the increment leaves the store buffer late */
    :: destroying -> stopped = 1; goto call_end
    fi;
#endif
    if
    :: b == OFF && n == (v >> 1) -> fast_entries++
    :: else ->
        atomic { t = next; next++ };
        note_turns();
        stripe[s]--;
        wait_for_turn(t);
        got_turn();
        revoke_bias();
        stripe[s]++;
        pass_turn(0)
    fi;
    atomic { inR++; assert(inW == 0) };
    r1 = d1;
#if RELEASE_FENCE
    r2 = d2;
    inR--;
    atomic { stripe[s]--; inside-- }
#else
    if
    :: r2 = d2; inR--; atomic { stripe[s]--; inside-- }
    :: inR--; stripe[s]--; r2 = d2; inside--   /* the load of d2 completes late */
    fi;
#endif
    assert(r1 == r2)
}

proctype worker(byte me) {
    byte t, v, n, s, b, r1, r2, gen, i, f0, call;
    bit ok, stopped;
    byte seen[WORKERS];
    call = 0;
    /* A call starts with its first access to the sections (below, in one step
     * with the host's promise: not while destroy runs, not after). */
    do
    :: call < CALLS && !stopped ->
        if
        :: me == 0 && BIAS && biased == ON -> bias_call()
        :: writer_call()
        :: reader_call()
        fi;
call_end:
        /* Forget what the call left in locals: states that differ only there
         * are the same state. */
        atomic {
            call++; t = 0; v = 0; n = 0; s = 0; b = 0; r1 = 0; r2 = 0; gen = 0; f0 = 0; ok = 0;
            i = 0;
            do
            :: i < WORKERS -> seen[i] = 0; i++
            :: else -> i = 0; break
            od
        }
    :: call == CALLS || stopped -> break
    od
}

/* rp_sections_try_close, retried until it succeeds (as a host would), at
 * most ATTEMPTS times past its CAS (each such attempt takes and passes a turn,
 * so unbounded retries would make the state space infinite). */
#ifndef ATTEMPTS
#define ATTEMPTS 2
#endif
proctype destroyer() {
    byte t, v, gen, attempts, r0, r1, n;
    bit ok;
    destroying = 1;
    do
    :: attempts < ATTEMPTS ->
       t = turn >> 1;
       atomic { if :: next == t -> next++; ok = 1 :: else -> ok = 0 fi };
       if
       :: ok ->
           attempts++;
           /* bias_thread_inside: never waits; the bias thread inside fails
            * it, in any state (it may have announced itself after a check
            * of a state that has changed since: BIAS_ANY_STATE 0 checks only
            * while the bias is not off). */
#if BIAS_ANY_STATE
           if :: biased == ON -> biased = REVOKING :: else -> skip fi;
           if :: bias_in == 0 -> biased = OFF; ok = 1 :: else -> ok = 0 fi;
#else
           if
           :: biased == OFF -> ok = 1
           :: biased != OFF ->
               if :: biased == ON -> biased = REVOKING :: else -> skip fi;
               if :: bias_in == 0 -> biased = OFF; ok = 1 :: else -> ok = 0 fi
           fi;
#endif
           /* The stripes, then `next` again: a reader counted when the CAS
            * happened may since have queued (ticket, then decrement). */
           r0 = stripe[0];
           r1 = stripe[1];
#if RECHECK_NEXT
           n = next;
#else
           n = t + 1;
#endif
           if
           :: ok && r0 == 0 && r1 == 0 && n == t + 1 ->
               lock();
               mutex = 0;
               atomic { assert(inside == 0); closed = 1 };
               break
           :: else -> pass_turn(0)
           fi
       :: else -> skip
       fi;
       atomic { t = 0; v = 0; r0 = 0; r1 = 0; n = 0; ok = 0 }
    :: attempts == ATTEMPTS -> break
    od
}

init {
    byte w;
    atomic {
        w = 0;
        do
        :: w < WORKERS -> run worker(w); w++
        :: else -> break
        od;
        biased = (BIAS -> ON : OFF);
#if DESTROYER
        run destroyer()
#endif
    }
}
