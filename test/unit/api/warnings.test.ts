/**
 * The warning recorder: kube-apiserver's header format and its limits (dedupe, 4096 runes in
 * full, then every warning cut to 256 runes until the budget is spent again, then dropped).
 */
import { expect } from 'chai';
import { WarningRecorder, runeCount, truncateRunes, warningHeaderValue } from '../../../lib/api/warnings';
import { parseWarnings } from '../../helpers/warning-headers';

function recorder(): { rec: WarningRecorder; sent: () => string[]; texts: () => string[] } {
  let last: string[] = [];
  const rec = new WarningRecorder({ setWarnings: (v) => { last = [...v]; } });
  return { rec, sent: () => last, texts: () => last.flatMap((v) => parseWarnings(v).map((w) => w.text)) };
}

describe('warnings', () => {
  describe('warningHeaderValue', () => {
    it('writes code 299, agent "-" and the quoted text, escaping " and \\', () => {
      expect(warningHeaderValue('plain text')).to.equal('299 - "plain text"');
      expect(warningHeaderValue('say "hi" to C:\\dir')).to.equal('299 - "say \\"hi\\" to C:\\\\dir"');
      expect(parseWarnings(warningHeaderValue('a "b" \\c\\')!)[0].text).to.equal('a "b" \\c\\');
    });

    it('sends non-ASCII text as its UTF-8 bytes', () => {
      const value = warningHeaderValue('größe ✓ 😀')!;
      expect(Buffer.from(value, 'latin1')).to.deep.equal(Buffer.from('299 - "größe ✓ 😀"', 'utf8'));
      expect(parseWarnings(value)[0].text).to.equal('größe ✓ 😀');
    });

    it('refuses control characters, unpaired surrogates and a bad agent', () => {
      expect(warningHeaderValue('line\nbreak')).to.equal(undefined);
      expect(warningHeaderValue('tab\there')).to.equal(undefined);
      expect(warningHeaderValue('c1 \u0085')).to.equal(undefined);
      expect(warningHeaderValue('half \ud83d pair')).to.equal(undefined);
      expect(warningHeaderValue('text', 'two words')).to.equal(undefined);
      expect(warningHeaderValue('text', '')).to.equal('299 - "text"');
    });
  });

  it('counts and cuts runes, never splitting a surrogate pair', () => {
    expect(runeCount('a😀b')).to.equal(3);
    expect(truncateRunes('😀😀😀', 2)).to.equal('😀😀');
    expect(truncateRunes('abc', 5)).to.equal('abc');
  });

  it('ignores empty text and drops repeats and invalid text', () => {
    const { rec, texts } = recorder();
    rec.add('');
    rec.add('one');
    rec.add('one');
    rec.add('bad\u0000text');
    rec.add('two');
    expect(texts()).to.deep.equal(['one', 'two']);
  });

  it('writes 4096 runes of warnings in full', () => {
    const { rec, texts } = recorder();
    const all = Array.from({ length: 16 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(254)}`);
    for (const w of all) rec.add(w);
    expect(texts()).to.deep.equal(all);
  });

  it('past 4096 runes cuts every warning to 256 runes, earlier ones too, then drops the rest', () => {
    const { rec, texts } = recorder();
    const long = (i: number) => `${String(i).padStart(2, '0')}${'y'.repeat(998)}`; // 1000 runes
    for (let i = 0; i < 4; i++) rec.add(long(i)); // 4000 runes: in full
    expect(texts().map((t) => t.length)).to.deep.equal([1000, 1000, 1000, 1000]);
    rec.add(long(4)); // over budget: all five cut to 256 (1280 runes)
    expect(texts().map((t) => t.length)).to.deep.equal([256, 256, 256, 256, 256]);
    expect(texts()[4]).to.equal(long(4).slice(0, 256));
    for (let i = 5; i < 40; i++) rec.add(long(i));
    // Cut warnings go on until the budget is spent: 16 of 256 runes, the 17th and later dropped.
    expect(texts()).to.have.length(16);
    expect(texts().every((t) => t.length === 256)).to.equal(true);
    expect(texts()[15]).to.equal(long(15).slice(0, 256));
    rec.add('short');
    expect(texts()).to.have.length(16);
  });

  it('cuts multi-byte text on rune boundaries', () => {
    const { rec, sent, texts } = recorder();
    const emoji = '😀'.repeat(5000);
    rec.add(emoji);
    expect(texts()).to.deep.equal(['😀'.repeat(256)]);
    // The bytes on the wire are whole UTF-8 sequences.
    const bytes = Buffer.from(sent()[0], 'latin1');
    expect(bytes.toString('utf8')).to.equal(`299 - "${'😀'.repeat(256)}"`);
    rec.add('é'.repeat(300));
    expect(texts()[1]).to.equal('é'.repeat(256));
  });

  it('limits the count of short warnings by their runes', () => {
    const { rec, sent } = recorder();
    // 8 runes each: 512 fit in full; the 513th starts cutting (nothing to cut) and overspends
    // the budget, so every later one is dropped.
    for (let i = 0; i < 5000; i++) rec.add(`w${i}`.padEnd(8, '.'));
    expect(sent()).to.have.length(513);
    expect(parseWarnings(sent()[512])[0].text).to.equal('w512....');
  });
});
