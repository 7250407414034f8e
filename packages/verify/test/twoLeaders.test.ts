import { describe, expect, it } from 'vitest';
import { checkHistory, type CheckOptions, type History } from '../src/index.js';
import { converged, fault, history, leader, role, stopped, takeOver } from './support/histories.js';

const only = (h: History, options: CheckOptions = {}) => checkHistory(h, { rules: ['two-leaders'], ...options }).violations;

describe('two-leaders: at no instant do two nodes report leader', () => {
  it('a node that reports leader while another still does breaks it; the check names both and shows the lines', () => {
    const h = history([...converged(0, ['n1', 'n2', 'n3'], 'n1'), role(900, 'n2', 'leader', 'candidate', 'confirmed'), role(1300, 'n1', 'follower', 'leader', 'dethroned')]);
    const [v, ...rest] = only(h);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'two-leaders', at: 900 });
    expect(v!.message).toContain('n2 reported leader at 900 ms while n1 still reported leader (since 0 ms): two leaders for 400 ms');
    expect(v!.around).toContainEqual(role(900, 'n2', 'leader', 'candidate', 'confirmed'));
    expect(v!.around.map((o) => o.node)).toEqual(expect.arrayContaining(['n1', 'n2']));
  });

  it('a leader that never steps down while another leads breaks it until the end of the run', () => {
    const h = history([...converged(0, ['n1', 'n2', 'n3'], 'n1'), role(2000, 'n2', 'leader', 'candidate', 'confirmed')], { end: 3000 });
    expect(only(h)[0]!.message).toContain('for 1000 ms');
  });

  it("a hand-over whose lines are read at the same ms holds, whatever their order (real runs)", () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(900, 'n2', 'leader', 'candidate', 'confirmed'), role(900, 'n1', 'follower', 'leader', 'dethroned')]);
    expect(only(h)).toEqual([]);
  });

  it('in the simulator’s order, a node reported leader before the other’s report ended at the same instant breaks it', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(900, 'n2', 'leader', 'candidate', 'confirmed'), role(900, 'n1', 'follower', 'leader', 'dethroned')]);
    const [v] = only(h, { simultaneity: 'in-order' });
    expect(v).toMatchObject({ rule: 'two-leaders', at: 900 });
    expect(v!.message).toContain('at the same instant');
    const handedOver = history([...converged(0, ['n1', 'n2'], 'n1'), role(900, 'n1', 'follower', 'leader', 'dethroned'), role(900, 'n2', 'leader', 'candidate', 'confirmed')]);
    expect(only(handedOver, { simultaneity: 'in-order' })).toEqual([]);
  });

  it('a leadership of zero length inside another’s breaks it', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(700, 'n2', 'leader', 'candidate', 'confirmed'), role(700, 'n2', 'candidate', 'leader', 'lease-expired')]);
    expect(only(h)).toMatchObject([{ rule: 'two-leaders', at: 700 }]);
  });

  it('a leader killed while leading reports nothing after the SIGKILL: its report ends at the kill', () => {
    const lines = takeOver(1600);
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 10_000)] }))).toEqual([]);
    // Without the kill its last line still says leader: the same lines break the rule.
    expect(only(history(lines))).toMatchObject([{ rule: 'two-leaders', at: 1600 }]);
  });

  it('a node killed while leading and restarted reports leader again only from its new role line', () => {
    const lines = [...takeOver(1600), role(3000, 'n1', 'follower', null, 'started'), leader(3000, 'n1', 'n2', 2, 0)];
    expect(only(history(lines, { faults: [fault('kill', 'n1', 1000, 3000)] }))).toEqual([]);
    const leadsAgain = [...converged(0, ['n1', 'n2'], 'n1'), role(1600, 'n2', 'leader', 'candidate', 'confirmed'), role(3000, 'n1', 'leader', null, 'started')];
    expect(only(history(leadsAgain, { faults: [fault('kill', 'n1', 1000, 3000)] }))).toMatchObject([{ rule: 'two-leaders', at: 3000 }]);
  });

  it('a paused leader cannot print: its report is excused while paused and until its first line on waking', () => {
    const lines = takeOver(1700, ['n2', 'n3'], [role(2502, 'n1', 'candidate', 'leader', 'lease-expired'), role(2503, 'n1', 'follower', 'candidate', 'leader-seen'), leader(2503, 'n1', 'n2', 2, 0)]);
    const faults = [fault('pause', 'n1', 1000, 2500)];
    expect(only(history(lines, { faults }))).toEqual([]);
    // The simulator's paused nodes do report the lapse: there, the excuse is turned off.
    expect(only(history(lines, { faults }), { excusePauses: false })).toMatchObject([{ rule: 'two-leaders', at: 1700 }]);
  });

  it('a paused leader that wakes and keeps saying leader while another leads breaks it once the grace has passed', () => {
    const lines = takeOver(1700);
    const [v] = only(history(lines, { faults: [fault('pause', 'n1', 1000, 2500)], end: 4000 }));
    expect(v).toMatchObject({ rule: 'two-leaders', at: 2600 });
  });

  it('a short pause of a leader that goes on leading is no second leader', () => {
    const h = history([...converged(0, ['n1', 'n2', 'n3'], 'n1')], { faults: [fault('pause', 'n1', 1000, 1200)] });
    expect(only(h)).toEqual([]);
  });

  it('a resign hands over: the old leader steps down before the next one reports leader', () => {
    const h = history([
      ...converged(0, ['n1', 'n2'], 'n1'),
      role(2000, 'n1', 'follower', 'leader', 'resigned'),
      role(2150, 'n2', 'leader', 'candidate', 'confirmed'),
      leader(2150, 'n2', 'n2', 2, 0),
      leader(2160, 'n1', 'n2', 2, 0),
    ]);
    expect(only(h)).toEqual([]);
  });

  it('a stopped leader reports nothing after its `stopped` line', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), stopped(2000, 'n1'), role(2100, 'n2', 'leader', 'candidate', 'confirmed')]);
    expect(only(h)).toEqual([]);
  });

  it('repeated `role leader` lines of one node are one report', () => {
    const h = history([...converged(0, ['n1', 'n2'], 'n1'), role(500, 'n1', 'leader', 'leader', 'revalidated')]);
    expect(only(h)).toEqual([]);
  });
});
