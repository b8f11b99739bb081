/**
 * The CronJob schedule as robfig/cron v3's ParseStandard reads it (what Kubernetes' validation
 * calls): the schedules it accepts, and for the ones it refuses the exact error text cron
 * returns, which Kubernetes puts after the schedule in the field error. And time.LoadLocation's
 * answer for IANA zone names.
 */
import { expect } from 'chai';
import { cronParseError, loadLocationError } from '../../../../lib/registry/batch/cron-jobs/schedule';

describe('CronJob schedule (robfig/cron ParseStandard)', () => {
  const accepted = [
    '*/5 * * * *', '0 0 * * *', '0 9-17 * * mon-fri', '15,45 */2 1 jan,jul ?', '0 0 1 1 0', '59 23 31 12 6', '5-10/2 * * * SUN',
    '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', '@every 1h30m', '@every 5m',
    'TZ=UTC 0 0 * * *', 'CRON_TZ=Europe/Paris 0 0 * * *', '  0   0  * * *  ',
  ];
  for (const schedule of accepted) {
    it(`accepts ${JSON.stringify(schedule)}`, () => expect(cronParseError(schedule)).to.equal(undefined));
  }

  const refused: Array<[string, string]> = [
    ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * foo *', 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['@often', 'unrecognized descriptor: @often'],
    ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
    ['TZ=Mars/Olympus 0 0 * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ];
  for (const [schedule, message] of refused) {
    it(`refuses ${JSON.stringify(schedule)}: ${message}`, () => expect(cronParseError(schedule)).to.equal(message));
  }
});

describe('time zones (time.LoadLocation)', () => {
  for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'US/Eastern']) {
    it(`loads ${zone}`, () => expect(loadLocationError(zone)).to.equal(undefined));
  }
  for (const zone of ['Mars/Olympus', 'europe/berlin', 'Europe', '../etc/passwd']) {
    it(`refuses ${zone}`, () => expect(loadLocationError(zone)).to.equal(`unknown time zone ${zone}`));
  }
});
