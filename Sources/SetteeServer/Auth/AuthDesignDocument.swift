import SetteeJSON
import SetteeStore

/// `_design/_auth`, the design document CouchDB keeps in its authentication database
/// (`couch_auth_cache:auth_design_doc/1`, written by `chttpd_auth_cache`'s
/// `ensure_auth_ddoc_exists/2` when it starts watching the database): clients and admin
/// tools wait for it to appear before they add users. Its `validate_doc_update` is
/// CouchDB 3.4.3's own, byte for byte (`AUTH_DB_DOC_VALIDATE_FUNCTION` in
/// `couch_js_functions.hrl`, Apache License 2.0), so the document and its revision
/// (`1-328d326d97fea853158eef1e1bfbc8b2`) are what CouchDB shows.
///
/// Settee enforces those rules natively (`UsersDatabasePolicy`), so `DocumentValidation`
/// recognises this exact function in a users database and does not run it: writes to
/// `_users` then work without a JavaScript engine (the container image has none).
enum AuthDesignDocument {
    static let id = "_design/_auth"

    /// The document's body as CouchDB writes it: `language`, then `validate_doc_update`.
    static var body: JSONObject { ["language": "javascript", "validate_doc_update": .string(validateFunction)] }

    /// Writes `_design/_auth` into `database` when it is missing, or puts CouchDB's
    /// function back when its `validate_doc_update` differs, as `ensure_auth_ddoc_exists`
    /// does; the server's own write (`.system`), so no user's rights are asked.
    /// - Throws: `StoreError` when the write fails for the whole batch.
    static func ensure(in database: Database) async throws {
        let current = try await database.winner(id: id)
        var body = Self.body
        var base: RevisionID?
        if let current, !current.isDeleted {
            let stored = current.body.flatMap { try? JSONReader.parse($0) }?.objectValue ?? JSONObject()
            guard stored["validate_doc_update"]?.stringValue != validateFunction else { return }
            body = stored
            body["validate_doc_update"] = .string(validateFunction)
            base = current.rev
        }
        let update = DocumentUpdate(id: id, body: JSONWriter.serialize(.object(body)), baseRevision: base)
        // A concurrent writer's version is as good: a conflict is left alone (CouchDB ignores it too).
        _ = try await WriteContext.$writer.withValue(.system) { try await database.update([update], newEdits: true) }
    }

    /// CouchDB 3.4.3's `AUTH_DB_DOC_VALIDATE_FUNCTION`, exactly.
    static let validateFunction = #"""

    function(newDoc, oldDoc, userCtx, secObj) {
        if (newDoc._deleted === true) {
            // allow deletes by admins and matching users
            // without checking the other fields
            if ((userCtx.roles.indexOf('_admin') !== -1) ||
                (userCtx.name == oldDoc.name)) {
                return;
            } else {
                throw({forbidden: 'Only admins may delete other user docs.'});
            }
        }

        if (newDoc.type !== 'user') {
            throw({forbidden : 'doc.type must be user'});
        } // we only allow user docs for now

        if (!newDoc.name) {
            throw({forbidden: 'doc.name is required'});
        }

        if (!newDoc.roles) {
            throw({forbidden: 'doc.roles must exist'});
        }

        if (!isArray(newDoc.roles)) {
            throw({forbidden: 'doc.roles must be an array'});
        }

        for (var idx = 0; idx < newDoc.roles.length; idx++) {
            if (typeof newDoc.roles[idx] !== 'string') {
                throw({forbidden: 'doc.roles can only contain strings'});
            }
        }

        if (newDoc._id !== ('org.couchdb.user:' + newDoc.name)) {
            throw({
                forbidden: 'Doc ID must be of the form org.couchdb.user:name'
            });
        }

        if (oldDoc) { // validate all updates
            if (oldDoc.name !== newDoc.name) {
                throw({forbidden: 'Usernames can not be changed.'});
            }
        }

        if (newDoc.password_sha && !newDoc.salt) {
            throw({
                forbidden: 'Users with password_sha must have a salt.' +
                    'See /_utils/script/couch.js for example code.'
            });
        }

        var available_schemes = ["simple", "pbkdf2"];
        if (newDoc.password_scheme
                && available_schemes.indexOf(newDoc.password_scheme) == -1) {
            throw({
                forbidden: 'Password scheme `' + newDoc.password_scheme
                    + '` not supported.'
            });
        }

        if (newDoc.password_scheme === "pbkdf2") {
            if (typeof(newDoc.iterations) !== "number") {
               throw({forbidden: "iterations must be a number."});
            }
            if (typeof(newDoc.derived_key) !== "string") {
               throw({forbidden: "derived_key must be a string."});
            }
        }

        var is_server_or_database_admin = function(userCtx, secObj) {
            // see if the user is a server admin
            if(userCtx.roles.indexOf('_admin') !== -1) {
                return true; // a server admin
            }

            // see if the user a database admin specified by name
            if(secObj && secObj.admins && secObj.admins.names) {
                if(secObj.admins.names.indexOf(userCtx.name) !== -1) {
                    return true; // database admin
                }
            }

            // see if the user a database admin specified by role
            if(secObj && secObj.admins && secObj.admins.roles) {
                var db_roles = secObj.admins.roles;
                for(var idx = 0; idx < userCtx.roles.length; idx++) {
                    var user_role = userCtx.roles[idx];
                    if(db_roles.indexOf(user_role) !== -1) {
                        return true; // role matches!
                    }
                }
            }

            return false; // default to no admin
        }

        if (!is_server_or_database_admin(userCtx, secObj)) {
            if (oldDoc) { // validate non-admin updates
                if (userCtx.name !== newDoc.name) {
                    throw({
                        forbidden: 'You may only update your own user document.'
                    });
                }
                // validate role updates
                var oldRoles = (oldDoc.roles || []).sort();
                var newRoles = newDoc.roles.sort();

                if (oldRoles.length !== newRoles.length) {
                    throw({forbidden: 'Only _admin may edit roles'});
                }

                for (var i = 0; i < oldRoles.length; i++) {
                    if (oldRoles[i] !== newRoles[i]) {
                        throw({forbidden: 'Only _admin may edit roles'});
                    }
                }
            } else if (newDoc.roles.length > 0) {
                throw({forbidden: 'Only _admin may set roles'});
            }
        }

        // no system roles in users db
        for (var i = 0; i < newDoc.roles.length; i++) {
            if (newDoc.roles[i] !== '_metrics') {
              if (newDoc.roles[i][0] === '_') {
                  throw({
                      forbidden:
                      'No system roles (starting with underscore) in users db.'
                  });
              }
            }
        }

        // no system names as names
        if (newDoc.name[0] === '_') {
            throw({forbidden: 'Username may not start with underscore.'});
        }

        var badUserNameChars = [':'];

        for (var i = 0; i < badUserNameChars.length; i++) {
            if (newDoc.name.indexOf(badUserNameChars[i]) >= 0) {
                throw({forbidden: 'Character `' + badUserNameChars[i] +
                        '` is not allowed in usernames.'});
            }
        }
    }

"""#

}
