@main
struct Settee {
    static func main() {}
}
