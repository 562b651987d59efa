/**
 * A class whose constructor returns the object it is given: a subclass stamps its private
 * fields onto an existing object (invisible to keys, spreads and equality), for a getter
 * shared by every such object to read. One shared getter keeps every object of a kind one
 * shape; a getter closure per object would give each a shape of its own, and thousands of
 * shapes slow every property look-up that meets them.
 *
 * @example
 * class Hidden extends Stamped {
 *   #secret: string;
 *   constructor(target: object, secret: string) { super(target); this.#secret = secret; }
 *   static read(target: object): string { return (target as Hidden).#secret; }
 * }
 */
export class Stamped {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: stamps a private field onto `target`
    return target;
  }
}
