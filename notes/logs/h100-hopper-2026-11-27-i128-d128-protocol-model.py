"""Deadlock model of hopper_fwd.cu's d128 producer / consumer protocol (one CTA): parity-exact mbarriers, the two
consumer warpgroups' ping-pong named barriers, FUSE (HOPPER_FUSE_TURN_D128) and KAHEAD (HOPPER_K_AHEAD_D128, with or
without the empty-tile flush).  Loads and wgmmas complete at issue (they wait on nothing else).  Tiles: a list of key-block
counts (0 = an empty tile), as the CTA receives them (dynamic schedule: through the Q slot, -1 at the end)."""
import random, sys

QS, ST, NWG = 2, 2, 2
EV = [0]

class Bar:
    def __init__(s, count): s.count, s.pending, s.phase = count, 0, 0
    def arrive(s, n=1):
        EV[0] += 1
        s.pending += n
        assert s.pending <= s.count
        if s.pending == s.count: s.pending, s.phase = 0, s.phase + 1
    def ready(s, parity): return (s.phase & 1) != parity

def run(tiles, fuse, kahead, kflush, dyn=True, seed=0):
    rnd = random.Random(seed)
    B = {}
    for i in range(QS): B['qf', i] = Bar(1); B['qe', i] = Bar(4 * NWG)
    for i in range(ST):
        for k in ('kf', 'vf'): B[k, i] = Bar(1)
        for k in ('ke', 've'): B[k, i] = Bar(4 * NWG)
    slot = {}
    named = {1: 0, 2: 0}   # pending arrivals of the other warpgroup
    def wait(key, par):
        while not B[key].ready(par): yield 'blocked ' + str(key)
    def producer():
        qs = st = 0; qph = ph = 0; pv = None
        def flush():
            nonlocal pv
            if pv is not None:
                s_, p_ = pv
                yield from wait(('ve', s_), p_ ^ 1); B['vf', s_].arrive(); pv = None
        for r in range(len(tiles) + 1):
            t = r if r < len(tiles) else -1
            if kahead and t < 0: yield from flush()
            if dyn:
                yield from wait(('qe', qs), qph ^ 1)
                slot[qs] = t
                if t < 0:
                    B['qf', qs].arrive(); return
            elif t < 0:
                return
            n = tiles[t]
            if kahead and kflush and n == 0: yield from flush()
            if n == 0:
                if dyn:
                    B['qf', qs].arrive(); qs += 1
                    if qs == QS: qs, qph = 0, qph ^ 1
                continue
            if not dyn: yield from wait(('qe', qs), qph ^ 1)
            B['qf', qs].arrive(); qs += 1
            if qs == QS: qs, qph = 0, qph ^ 1
            for _ in range(n):
                yield from wait(('ke', st), ph ^ 1); B['kf', st].arrive()
                if kahead:
                    yield from flush(); pv = (st, ph)
                else:
                    yield from wait(('ve', st), ph ^ 1); B['vf', st].arrive()
                st += 1
                if st == ST: st, ph = 0, ph ^ 1
    def consumer(wg):
        qs = kst = 0; qph = kph = 0; r_next = 0
        def sync():
            b = 1 + wg
            while named[b] == 0: yield 'blocked bar%d' % b
            named[b] -= 1; EV[0] += 1
        def arrive():
            b = 1 + (wg + 1) % NWG
            named[b] += 1; EV[0] += 1
            assert named[b] <= 1, 'double arrival'
        if wg == NWG - 1: arrive()
        def next_tile():
            nonlocal qs, qph, r_next
            while True:
                if dyn:
                    yield from wait(('qf', qs), qph)
                    t = slot[qs]
                    if t < 0: return -1
                else:
                    t = r_next if r_next < len(tiles) else -1; r_next += 1
                    if t < 0: return -1
                if tiles[t] > 0: return t
                if dyn:
                    B['qe', qs].arrive(4); qs += 1
                    if qs == QS: qs, qph = 0, qph ^ 1
        def first_qk():
            yield from wait(('qf', qs), qph); yield from wait(('kf', kst), kph)
            yield from sync(); arrive()
        t = yield from next_tile()
        if t < 0: return
        yield from first_qk()
        while True:
            n = tiles[t]
            B['ke', kst].arrive(4)           # the first QK^T waited
            vst, vph = kst, kph
            kst += 1
            if kst == ST: kst, kph = 0, kph ^ 1
            for _ in range(n - 1):
                yield from wait(('kf', kst), kph); yield from wait(('vf', vst), vph)
                yield from sync(); arrive()
                B['ke', kst].arrive(4); B['ve', vst].arrive(4)
                kst += 1
                if kst == ST: kst, kph = 0, kph ^ 1
                vst += 1
                if vst == ST: vst, vph = 0, vph ^ 1
            B['qe', qs].arrive(4); qs += 1
            if qs == QS: qs, qph = 0, qph ^ 1
            yield from wait(('vf', vst), vph)
            if fuse:
                tn = yield from next_tile()
                if tn >= 0:
                    yield from wait(('qf', qs), qph); yield from wait(('kf', kst), kph)
            yield from sync(); arrive()
            B['ve', vst].arrive(4)
            if fuse:
                t = tn
                if t < 0: return
                continue
            t = yield from next_tile()
            if t < 0: return
            yield from first_qk()
    agents = {'P': producer(), 'W0': consumer(0), 'W1': consumer(1)}
    state = {k: None for k in agents}
    stuck = 0
    while agents:
        ev0 = EV[0]
        for k in rnd.sample(list(agents), len(agents)):
            try:
                next(agents[k])
            except StopIteration:
                del agents[k]; EV[0] += 1
        if EV[0] == ev0:
            stuck += 1
            if stuck > 3:
                return 'DEADLOCK'
        else:
            stuck = 0
    return 'ok'

if __name__ == '__main__':
    rnd = random.Random(1)
    for kflush in (False, True):
        for fuse in (False, True):
            for dyn in (True, False):
                bad = 0; ex = None
                for it in range(3000):
                    tiles = [rnd.choice([0, 0, 1, 2, 3, 4]) for _ in range(rnd.randint(1, 9))]
                    res = run(tiles, fuse, True, kflush, dyn, seed=it)
                    if res != 'ok': bad += 1; ex = ex or (tiles, res)
                base = sum(run([rnd.choice([0, 1, 2, 3]) for _ in range(rnd.randint(1, 9))], fuse, False, False, dyn, it) != 'ok'
                           for it in range(500))
                print(f"kahead flush={kflush} fuse={fuse} dyn={dyn}: {bad} / 3000 deadlocked; without kahead: {base} / 500"
                      + (f"; e.g. {ex[0]}: {ex[1][:120]}" if ex else ""))
