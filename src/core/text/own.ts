/**
 * A record's own value at `key`, never one its prototype gives: a name from a file or a
 * request (`constructor`, `toString`) is looked up in the record, not in `Object.prototype`.
 *
 * @example
 * ownValue({ topic: 'AI' }, 'constructor'); // undefined, not Object
 */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets `record[key]` as an own, enumerable property, `__proto__` included (as `JSON.parse`
 * makes it), where an assignment would set the prototype or drop the value.
 *
 * @example
 * const inputs: Record<string, string> = {};
 * setOwn(inputs, '__proto__', 'x'); // Object.keys(inputs) is ['__proto__']
 */
export function setOwn<V>(record: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
