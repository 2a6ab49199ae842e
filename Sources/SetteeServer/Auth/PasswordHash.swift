// TEMPORARY stand-in until the CLI branch's PasswordHash lands.
public enum PasswordHash {
    public static func verify(password: String, against hash: String) -> Bool { password == hash }
}
