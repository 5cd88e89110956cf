import { useState } from 'react';
import type { FormEvent } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { normalisePostcode } from '../postcode.ts';
import styles from './postcode-form.module.css';

export const emptyPostcodeMessage = 'Please enter a postcode';

export interface PostcodeFormProps {
  /** Called with the normalised postcode, never an empty one. */
  onSubmit: (postcode: string) => void;
  initialPostcode?: string;
  label?: string;
  submitLabel?: string;
  /** Why the last postcode was refused (the server's explanation), shown under the field. */
  error?: string | null;
  isLoading?: boolean;
}

/**
 * The postcode box (docs/requirements.md#input-rules): what is typed is upper-cased with everything but letters and digits
 * removed; an empty submit says 'Please enter a postcode'.
 */
export function PostcodeForm({
  onSubmit,
  initialPostcode = '',
  label = 'Postcode',
  submitLabel = 'Check signal',
  error = null,
  isLoading = false,
}: PostcodeFormProps) {
  const [postcode, setPostcode] = useState(() => normalisePostcode(initialPostcode));
  const [emptyError, setEmptyError] = useState<string | null>(null);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (postcode === '') {
      setEmptyError(emptyPostcodeMessage);
      return;
    }
    setEmptyError(null);
    onSubmit(postcode);
  }

  return (
    <form className={styles.form} onSubmit={handleSubmit} noValidate>
      <TextField
        label={label}
        name="postcode"
        hint="For example EX36 3LH. Spaces are not needed."
        autoComplete="postal-code"
        autoCapitalize="characters"
        spellCheck={false}
        value={postcode}
        onChange={(event) => {
          setPostcode(normalisePostcode(event.target.value));
          setEmptyError(null);
        }}
        error={emptyError ?? error}
      />
      <Button type="submit" isLoading={isLoading} isFullWidth>
        {submitLabel}
      </Button>
    </form>
  );
}
