"""Go receivers, Rust impl blocks, Java constructors and annotations."""

import textwrap

from vault_engine.sources.code.symbols import parse_source

GO = textwrap.dedent('''\
    package shop

    import (
    \t"fmt"
    \tstr "strings"
    )

    // Order is one order.
    type Order struct{ ID int }

    type Store interface{ Get() }

    // Place places an order.
    func (b *OrderBook) Place(o Order) error {
    \tb.validate(o)
    \tfmt.Println(str.ToUpper("x"))
    \treturn nil
    }

    func helper(a, b int) int { return a + b }
    ''')

RUST = textwrap.dedent('''\
    use crate::util::{helper, other as o};

    /// A point.
    #[derive(Debug)]
    pub struct Point { x: i32 }

    pub trait Area { fn area(&self) -> f64; }

    impl Point {
        /// Make one.
        pub fn new(x: i32) -> Self { Self::check(x); Point { x } }
        fn check(x: i32) { helper(x); }
    }

    impl Area for Point {
        fn area(&self) -> f64 { self.scale() }
    }
    ''')

JAVA = textwrap.dedent('''\
    package shop;

    import shop.util.Helper;

    /** An order book. */
    @Service
    public class OrderBook extends Base implements Book {
        /** Make one. */
        public OrderBook(int n) { super(n); }

        @Override
        public void place(Order o) { validate(o); Helper.run(); new Order(1); }

        private void validate(Order o) {}
    }
    ''')


def test_go_methods_are_named_after_their_receiver_type():
    parsed = parse_source("shop/book.go", GO, "go")
    got = [(s.qualname, s.kind) for s in parsed.symbols]
    assert got == [("Order", "struct"), ("Store", "interface"), ("OrderBook.Place", "method"), ("helper", "function")]
    place = parsed.symbol("OrderBook.Place")
    assert place.parent == "OrderBook" and place.docstring == "Place places an order."
    assert place.signature == "func (b *OrderBook) Place(o Order) error"
    assert parsed.symbol("helper").parameters == ("a", "b")
    assert ("OrderBook.Place", "b", "OrderBook") in {(b.scope, b.name, b.annotation) for b in parsed.bindings}
    assert {(i.local, i.module) for i in parsed.imports} == {("fmt", "fmt"), ("str", "strings")}
    assert {"b.validate", "fmt.Println", "str.ToUpper"} <= {c.callee for c in parsed.calls}


def test_rust_impl_methods_are_named_after_the_type():
    parsed = parse_source("src/point.rs", RUST, "rust")
    got = [(s.qualname, s.kind) for s in parsed.symbols]
    assert got == [("Point", "struct"), ("Area", "trait"), ("Area.area", "method"), ("impl Point", "impl"),
                   ("Point.new", "method"), ("Point.check", "method"), ("impl Area for Point", "impl"),
                   ("Point.area", "method")]
    point = parsed.symbol("Point")
    assert (point.line_start, point.def_line, point.decorators, point.docstring) == (4, 5, ("derive(Debug)",), "A point.")
    assert parsed.symbol("Point.new").parent == "Point"
    assert {("helper", "crate::util", "helper"), ("o", "crate::util", "other")} == \
        {(i.local, i.module, i.name) for i in parsed.imports}
    assert {"Self.check", "helper", "self.scale"} <= {c.callee for c in parsed.calls}


def test_java_constructors_annotations_and_bases():
    parsed = parse_source("src/shop/OrderBook.java", JAVA, "java")
    got = [(s.qualname, s.kind) for s in parsed.symbols]
    assert got == [("OrderBook", "class"), ("OrderBook.OrderBook", "constructor"), ("OrderBook.place", "method"),
                   ("OrderBook.validate", "method")]
    cls = parsed.symbol("OrderBook")
    assert (cls.line_start, cls.def_line, cls.decorators, cls.bases) == (6, 7, ("Service",), ("Base", "Book"))
    assert cls.docstring == "An order book." and parsed.symbol("OrderBook.OrderBook").docstring == "Make one."
    assert parsed.symbol("OrderBook.place").decorators == ("Override",)
    calls = {(c.caller, c.callee) for c in parsed.calls}
    assert {("OrderBook.OrderBook", "super"), ("OrderBook.place", "validate"), ("OrderBook.place", "Helper.run"),
            ("OrderBook.place", "new Order")} <= calls
