import { describe, expect, it } from 'vitest';
import {
  initialWizardState,
  wizardMessages,
  wizardQuery,
  wizardReducer,
  type WizardAction,
  type WizardState,
} from './wizard-state.ts';

const start = (query = '', signedInEmail?: string) =>
  initialWizardState(new URLSearchParams(query), signedInEmail);

const run = (state: WizardState, ...actions: WizardAction[]) =>
  actions.reduce(wizardReducer, state);

const iccid = '8944110000000009017';

describe('loading the wizard', () => {
  it('starts at step 0 with region uk', () => {
    expect(start()).toMatchObject({ step: 0, email: '', codeType: null, code: '', location: 'uk' });
  });

  it('is pre-filled from the query', () => {
    expect(start('email=a%40b.co&code_type=4-digits&code=kqtx&location=ie')).toMatchObject({
      email: 'a@b.co',
      codeType: '4-digits',
      code: 'KQTX',
      location: 'ie',
    });
  });

  it('takes the signed-in e-mail when the query has none', () => {
    expect(start('', 'me@farm.co').email).toBe('me@farm.co');
    expect(start('email=other%40farm.co', 'me@farm.co').email).toBe('other@farm.co');
    expect(run(start(), { type: 'emailPrefilled', email: 'me@farm.co' }).email).toBe('me@farm.co');
    expect(run(start('email=x%40y.z'), { type: 'emailPrefilled', email: 'me@farm.co' }).email).toBe(
      'x@y.z',
    );
  });

  it('infers the code type from the code when the link has none', () => {
    expect(start('code=kqtx')).toMatchObject({ codeType: '4-digits', code: 'KQTX' });
    expect(start(`code=${iccid}`)).toMatchObject({ codeType: '20-digits', code: iccid });
    expect(start('code=89441100000000090170')).toMatchObject({ codeType: '20-digits' });
    expect(start('code=KQT')).toMatchObject({ codeType: null, code: '' });
    expect(start('code=12345')).toMatchObject({ codeType: null, code: '' });
    // A stated type wins over the shape.
    expect(start('code_type=20-digits&code=KQTX')).toMatchObject({
      codeType: '20-digits',
      code: '',
    });
  });

  it('drops what does not fit: an unknown code type, letters in an ICCID', () => {
    expect(start('code_type=6-digits&code=KQT1')).toMatchObject({ codeType: null, code: '' });
    // An unknown type falls back to the code's shape.
    expect(start('code_type=6-digits&code=KQTX')).toMatchObject({ codeType: '4-digits' });
    expect(start('code_type=20-digits&code=89441100x00').code).toBe('8944110000');
  });

  it('mirrors email, code_type, code and location into the query', () => {
    const state = run(
      start(),
      { type: 'emailChanged', email: 'a@b.co' },
      { type: 'codeTypeChosen', codeType: '4-digits' },
      { type: 'codeChanged', input: 'kq' },
    );
    expect(wizardQuery(state)).toEqual({
      email: 'a@b.co',
      code_type: '4-digits',
      code: 'KQ',
      location: 'uk',
    });
    expect(wizardQuery(start())).toEqual({
      email: undefined,
      code_type: undefined,
      code: undefined,
      location: 'uk',
    });
  });
});

describe('step 0: e-mail', () => {
  it('goes to step 1 with a valid e-mail', () => {
    expect(
      run(start(), { type: 'emailChanged', email: 'a@b.co' }, { type: 'emailSubmitted' }).step,
    ).toBe(1);
  });

  it('goes straight to step 2 when a code or code type exists', () => {
    expect(run(start('code_type=20-digits&email=a%40b.co'), { type: 'emailSubmitted' }).step).toBe(
      2,
    );
    expect(
      run(start('code_type=4-digits&code=KQTX&email=a%40b.co'), { type: 'emailSubmitted' }).step,
    ).toBe(2);
  });

  it('stays with "Please enter a valid email" otherwise, cleared on typing', () => {
    const refused = run(
      start(),
      { type: 'emailChanged', email: 'farmer@example' },
      { type: 'emailSubmitted' },
    );
    expect(refused).toMatchObject({ step: 0, emailError: wizardMessages.invalidEmail });
    expect(
      run(refused, { type: 'emailChanged', email: 'farmer@example.com' }).emailError,
    ).toBeNull();
  });
});

describe('step 1: code type', () => {
  it('goes to step 2 once a type is chosen, and back to step 0', () => {
    const atOne = run(start('email=a%40b.co'), { type: 'emailSubmitted' });
    expect(run(atOne, { type: 'codeTypeSubmitted' }).step).toBe(1);
    expect(
      run(atOne, { type: 'codeTypeChosen', codeType: '4-digits' }, { type: 'codeTypeSubmitted' })
        .step,
    ).toBe(2);
    expect(run(atOne, { type: 'back' }).step).toBe(0);
  });

  it('clears the entered codes when the type changes, not when the same type is chosen again', () => {
    const typed = run(start('code_type=4-digits&code=KQTX'), {
      type: 'codeTypeChosen',
      codeType: '4-digits',
    });
    expect(typed.code).toBe('KQTX');
    expect(run(typed, { type: 'codeTypeChosen', codeType: '20-digits' })).toMatchObject({
      codeType: '20-digits',
      code: '',
    });
  });
});

describe('step 2: code', () => {
  const atTwo = (codeType: '4-digits' | '20-digits') =>
    run(start(`email=a%40b.co&code_type=${codeType}`), { type: 'emailSubmitted' });

  it('a 4-letter code waits for the SIM Validated confirmation, then goes to step 3', () => {
    const validated = run(
      atTwo('4-digits'),
      { type: 'codeChanged', input: 'kqtx' },
      { type: 'validationSucceeded', iccid },
    );
    expect(validated).toMatchObject({ step: 2, pendingIccid: iccid, iccid: null });
    expect(run(validated, { type: 'simConfirmationDismissed' })).toMatchObject({
      step: 2,
      pendingIccid: null,
    });
    expect(run(validated, { type: 'simConfirmed' })).toMatchObject({
      step: 3,
      iccid,
      pendingIccid: null,
    });
  });

  it('an ICCID goes to step 3 at once', () => {
    const validated = run(
      atTwo('20-digits'),
      { type: 'codeChanged', input: iccid },
      { type: 'validationSucceeded', iccid },
    );
    expect(validated).toMatchObject({ step: 3, iccid });
  });

  it('keeps the server’s message until the code changes; "Try 20-digit method" switches and clears', () => {
    const failed = run(
      atTwo('4-digits'),
      { type: 'codeChanged', input: 'ZZZZ' },
      { type: 'validationFailed', message: 'Nope' },
    );
    expect(failed).toMatchObject({ step: 2, validationError: 'Nope' });
    expect(run(failed, { type: 'codeChanged', input: 'ZZZ' }).validationError).toBeNull();
    expect(run(failed, { type: 'twentyDigitMethodChosen' })).toMatchObject({
      step: 2,
      codeType: '20-digits',
      code: '',
      validationError: null,
    });
    // Already on the 20-digit method: it clears the number for a fresh try.
    const iccidFailed = run(
      atTwo('20-digits'),
      { type: 'codeChanged', input: iccid },
      { type: 'validationFailed', message: 'Nope' },
    );
    expect(run(iccidFailed, { type: 'twentyDigitMethodChosen' })).toMatchObject({
      codeType: '20-digits',
      code: '',
    });
  });

  it('Back returns to step 1', () => {
    expect(run(atTwo('4-digits'), { type: 'back' }).step).toBe(1);
  });
});

describe('steps 3 and 4: region and plan', () => {
  const atThree = () =>
    run(
      start('email=a%40b.co&code_type=20-digits'),
      { type: 'emailSubmitted' },
      { type: 'codeChanged', input: iccid },
      { type: 'validationSucceeded', iccid },
    );

  it('a region choice is kept, then the plan step is entered', () => {
    const chosen = run(atThree(), { type: 'regionChosen', location: 'ie' });
    expect(chosen).toMatchObject({ step: 3, location: 'ie' });
    expect(run(chosen, { type: 'planStepEntered' }).step).toBe(4);
  });

  it('step 4 without an e-mail returns to step 0 with "You must enter an email"', () => {
    const noEmail = run(
      atThree(),
      { type: 'emailChanged', email: '' },
      { type: 'planStepEntered' },
    );
    expect(noEmail).toMatchObject({ step: 0, emailError: wizardMessages.missingEmail });
  });

  it('step 4 without a code returns to step 2 with "You must enter a code"', () => {
    const noCode = run(atThree(), { type: 'codeChanged', input: '' }, { type: 'planStepEntered' });
    expect(noCode).toMatchObject({ step: 2, codeError: wizardMessages.missingCode });
  });

  it('a SIM sold meanwhile sends the visitor back to step 2 with the server’s words', () => {
    const atFour = run(atThree(), { type: 'planStepEntered' });
    expect(run(atFour, { type: 'simNoLongerAvailable', message: 'Sold' })).toMatchObject({
      step: 2,
      iccid: null,
      validationError: 'Sold',
    });
  });

  it('Back goes 4 → 3 → 2', () => {
    const atFour = run(atThree(), { type: 'planStepEntered' });
    expect(run(atFour, { type: 'back' }).step).toBe(3);
    expect(run(atFour, { type: 'back' }, { type: 'back' }).step).toBe(2);
  });
});

describe('the step in the address (each step a history entry)', () => {
  it('mirrors the step past the first', () => {
    expect(wizardQuery(start()).step).toBeUndefined();
    expect(wizardQuery(run(start('email=a%40b.co'), { type: 'emailSubmitted' })).step).toBe('1');
  });

  it('loads at the query’s step as far as what is known allows', () => {
    expect(start('step=2').step).toBe(0);
    expect(start('step=2&email=a%40b.co').step).toBe(1);
    expect(start('step=2&email=a%40b.co&code=KQTX').step).toBe(2);
    expect(start('step=9&email=a%40b.co&code=KQTX').step).toBe(0);
    // Steps 3 and 4 need the SIM the entry validated, and an ICCID must be that SIM.
    const query = new URLSearchParams(`step=4&email=a%40b.co&code=${iccid}`);
    expect(initialWizardState(query).step).toBe(2);
    expect(initialWizardState(query, undefined, iccid)).toMatchObject({ step: 4, iccid });
    expect(initialWizardState(query, undefined, '8944110000000009025').step).toBe(2);
  });

  it('a history move takes the entry’s query and SIM', () => {
    const atRegion = run(start(`email=a%40b.co&code_type=20-digits&code=${iccid}`), {
      type: 'emailSubmitted',
    });
    const moved = run(atRegion, {
      type: 'historyMoved',
      query: new URLSearchParams('step=1&email=a%40b.co&code_type=20-digits'),
      validatedIccid: null,
    });
    expect(moved).toMatchObject({ step: 1, code: '', codeType: '20-digits', iccid: null });
  });
});
