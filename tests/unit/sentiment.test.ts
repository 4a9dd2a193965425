/**
 * Sentiment of text answers (src/core/responses/sentiment.ts; docs/analytics.md, "Sentiment"): wink-nlp's score
 * in -1..1 and the labels by the documented threshold, negation, the mean over a response's text answers, the
 * fallback for languages the library does not read, and the switch.
 */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import type { StoredAnswer } from '../../src/core/responses/answers';
import { meanSentiment, scoreAnswers, sentimentColumns, sentimentLabel, setSentimentEnabled, textSentiment } from '../../src/core/responses/sentiment';

const text = (question_id: string, value: string): StoredAnswer => ({ question_id, type: 'text', title: 'Why?', value });

describe('textSentiment', () => {
  it.each([
    ['not bad at all', 'positive'],
    ['The product is not bad at all.', 'positive'],
    ['not good', 'negative'],
    ['This is not good.', 'negative'],
    ['I would not recommend it, terrible', 'negative'],
    ['Support answered quickly and solved my problem. Love the new dashboard!', 'positive'],
    ['The app is awful and support is useless.', 'negative'],
    ['Missing an export to our BI tool.', 'negative'],
    // A lexicon, not a reader: "slow" and "too expensive" carry no score in it (docs/analytics.md, "Sentiment").
    ['The mobile app is slow.', 'neutral'],
    ['Too expensive for what we use.', 'neutral'],
  ])('reads negation and polarity: %j is %s', (input, label) => {
    const s = textSentiment(input, 'en')!;
    expect(s.label).toBe(label);
    expect(s.score).toBeGreaterThanOrEqual(-1);
    expect(s.score).toBeLessThanOrEqual(1);
  });

  it('scores "not bad at all" above zero and "not good" below zero, with 3 decimals at most', () => {
    expect(textSentiment('not bad at all', 'en')).toEqual({ score: 0.6, label: 'positive' });
    expect(textSentiment('not good', 'en')).toEqual({ score: -0.776, label: 'negative' });
  });

  it('takes the primary language subtag: en-GB and EN are English', () => {
    expect(textSentiment('not good', 'en-GB')).toEqual({ score: -0.776, label: 'negative' });
    expect(textSentiment('not good', 'EN')).toEqual({ score: -0.776, label: 'negative' });
  });

  it('answers null for a language the library does not read (German, French, Spanish)', () => {
    expect(textSentiment('Der Support war sehr gut', 'de')).toBeNull();
    expect(textSentiment('pas mal du tout', 'fr')).toBeNull();
    expect(textSentiment('no está mal', 'es')).toBeNull();
  });

  it('answers neutral 0 for a text without letters or digits, without asking the library', () => {
    expect(textSentiment('', 'en')).toEqual({ score: 0, label: 'neutral' });
    expect(textSentiment('  ...  ', 'en')).toEqual({ score: 0, label: 'neutral' });
  });
});

describe("wink's pipe with sentence detection", () => {
  // The reference: wink's pipe with sentence detection, made here, for texts of one sentence and of several.
  const reference = winkNLP(model, ['sbd', 'negation', 'sentiment']);
  const score = (t: string) => {
    const raw = reference.readDoc(t).out(reference.its.sentiment) as unknown as number;
    return Math.round(raw * 1000) / 1000;
  };
  it.each([
    'Great product, the reporting saves me hours every week.',
    'Support answered quickly and solved my problem.',
    'not bad at all',
    'not good!',
    'I do not like it, it is terrible and slow',
    'Love it 😀 great support',
    'Awful app :( but the team is nice',
    '"Best tool ever", says my boss',
    'The price (too high) is a problem',
    'Great support. Love the new dashboard!',
    'not bad at all. But the app is awful.',
    'Good\nBad\nterrible',
    'Fine; nothing else: thanks',
    'e.g. the export is great',
  ])('scores %j as the reference pipe does', (t) => {
    expect(textSentiment(t, 'en')!.score).toBe(score(t));
  });
});

describe('labels and the mean', () => {
  it('labels by the 0.05 threshold: at or above positive, at or below -0.05 negative, neutral between', () => {
    expect([0.05, 0.049, 0, -0.049, -0.05, 1, -1].map(sentimentLabel)).toEqual([
      'positive',
      'neutral',
      'neutral',
      'neutral',
      'negative',
      'positive',
      'negative',
    ]);
  });

  it('means the scores (3 decimals), null without any', () => {
    expect(meanSentiment([0.6, -0.776])).toEqual({ score: -0.088, label: 'negative' });
    expect(meanSentiment([0.1, -0.06])).toEqual({ score: 0.02, label: 'neutral' });
    expect(meanSentiment([])).toBeNull();
  });
});

describe('scoreAnswers and sentimentColumns', () => {
  const answers: StoredAnswer[] = [
    { question_id: 'q_nps', type: 'nps', title: 'How likely?', value: 9 },
    text('q_good', 'not bad at all'),
    text('q_bad', 'not good'),
    { question_id: 'q_email', type: 'email', title: 'Email?', value: 'a@example.com' },
  ];

  it('adds sentiment to text answers only, and the mean as the overall sentiment', () => {
    const scored = scoreAnswers(answers, 'en');
    expect(scored.answers).toEqual([
      answers[0],
      { ...answers[1], sentiment: { score: 0.6, label: 'positive' } },
      { ...answers[2], sentiment: { score: -0.776, label: 'negative' } },
      answers[3],
    ]);
    expect(scored.overall).toEqual({ score: -0.088, label: 'negative' });
    expect(answers[1]).not.toHaveProperty('sentiment');
  });

  it('stores null on text answers of an unsupported language and no overall sentiment', () => {
    const scored = scoreAnswers([text('q', 'Sehr gut, nicht schlecht')], 'de');
    expect(scored).toEqual({ answers: [{ ...text('q', 'Sehr gut, nicht schlecht'), sentiment: null }], overall: null });
  });

  it('has no overall sentiment without text answers', () => {
    expect(scoreAnswers([answers[0]!], 'en')).toEqual({ answers: [answers[0]], overall: null });
  });

  it('gives the columns of a write, and with the switch off leaves the answers as they are and marks them pending', () => {
    expect(sentimentColumns(answers, 'en').columns).toEqual({ sentiment_score: -0.088, sentiment_label: 'negative', sentiment_pending: false });
    setSentimentEnabled(false);
    try {
      expect(sentimentColumns(answers, 'en')).toEqual({
        answers,
        columns: { sentiment_score: null, sentiment_label: null, sentiment_pending: true },
      });
    } finally {
      setSentimentEnabled(true);
    }
  });

  it('scores 2,000 short answers in a few seconds at most: the model is loaded once (0.2 s a load)', () => {
    textSentiment('warm up', 'en');
    const started = performance.now();
    for (let i = 0; i < 2000; i++) textSentiment(`Support answered quickly, not bad at all (${i})`, 'en');
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
