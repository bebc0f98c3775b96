// The syntax tree. Every node carries the source offset its errors are reported at.

export type Literal = null | boolean | bigint | number | string;

export type BinaryOperator =
  | 'or'
  | 'and'
  | '=='
  | '!='
  | '<'
  | '>'
  | '<='
  | '>='
  | 'in'
  | 'not in'
  | 'matches'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | '..'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '**'
  | '??';

export type UnaryOperator = 'not' | '-' | '+';

export type Node =
  | { readonly kind: 'literal'; readonly value: Literal; readonly offset: number }
  | { readonly kind: 'array'; readonly items: readonly Node[]; readonly offset: number }
  | {
      readonly kind: 'map';
      readonly entries: readonly { readonly key: string; readonly value: Node }[];
      readonly offset: number;
    }
  | { readonly kind: 'name'; readonly name: string; readonly offset: number }
  | { readonly kind: 'pointer'; readonly name: '#' | '#index'; readonly offset: number }
  | {
      readonly kind: 'member';
      readonly object: Node;
      readonly property: Node;
      readonly optional: boolean;
      readonly offset: number;
    }
  | {
      readonly kind: 'slice';
      readonly object: Node;
      readonly from: Node | undefined;
      readonly to: Node | undefined;
      readonly offset: number;
    }
  | {
      readonly kind: 'unary';
      readonly op: UnaryOperator;
      readonly operand: Node;
      readonly offset: number;
    }
  | {
      readonly kind: 'binary';
      readonly op: BinaryOperator;
      readonly left: Node;
      readonly right: Node;
      readonly offset: number;
    }
  | {
      readonly kind: 'conditional';
      readonly test: Node;
      readonly then: Node;
      readonly otherwise: Node;
      readonly offset: number;
    }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly args: readonly Node[];
      readonly offset: number;
    }
  | { readonly kind: 'closure'; readonly body: Node; readonly offset: number };

/** Children of a node, for walks that do not care about the kind. */
export function children(node: Node): readonly Node[] {
  switch (node.kind) {
    case 'literal':
    case 'name':
    case 'pointer':
      return [];
    case 'array':
      return node.items;
    case 'map':
      return node.entries.map((e) => e.value);
    case 'member':
      return [node.object, node.property];
    case 'slice':
      return [node.object, ...(node.from ? [node.from] : []), ...(node.to ? [node.to] : [])];
    case 'unary':
      return [node.operand];
    case 'binary':
      return [node.left, node.right];
    case 'conditional':
      return [node.test, node.then, node.otherwise];
    case 'call':
      return node.args;
    case 'closure':
      return [node.body];
  }
}
