Feature: Callers beyond loopback are authenticated and kept to their scope
  As an operator serving toolhost on a pod address
  I want every call to carry a token whose scope names its roots and its highest tier
  So that an agent can only reach what it was given, and a revoked token stops working at once

  # Each scenario runs a real toolhost over TLS with a tokens file, called by the generated
  # TypeScript client with "authorization: Bearer <token>".

  Background:
    Given a toolhost over TLS with these tokens:
      | id     | tier   | roots         |
      | admin  | delete | a, b          |
      | reader | read   | a             |
      | ro     | delete | a (read-only) |
    And root "a" has a file "notes.txt" with content "hello"
    And root "b" has a file "secret.txt" with content "hidden"

  Scenario: A caller without a token is refused
    When a caller without a token stats "notes.txt"
    Then the call fails with UNAUTHENTICATED and reason "UNAUTHENTICATED"

  Scenario: An unknown token is refused
    When a caller with the token "th_made-up" stats "notes.txt"
    Then the call fails with UNAUTHENTICATED and reason "UNAUTHENTICATED"

  Scenario: A read-tier token cannot write, even by calling WriteFile directly
    When "reader" writes "new.txt" with content "x"
    Then the call fails with PERMISSION_DENIED and reason "OUT_OF_SCOPE"
    And the error mentions "WriteFile needs tier write.*allows up to read"
    And the error's metadata "lacks" is "tier"
    And root "a" has no file "new.txt"

  Scenario: A read-only scope cannot delete
    When "ro" deletes "notes.txt"
    Then the call fails with PERMISSION_DENIED and reason "OUT_OF_SCOPE"
    And root "a" has a file "notes.txt"

  Scenario: A scope for root a cannot read root b by absolute path, and is not told it exists
    When "reader" stats the absolute path of "secret.txt" in root "b"
    Then the call fails with PERMISSION_DENIED and reason "PATH_TRAVERSAL"
    And the error does not name root "b" beyond the path given

  Scenario: A scope for root a cannot climb into root b with ..
    When "reader" stats "../b/secret.txt"
    Then the call fails with PERMISSION_DENIED and reason "PATH_TRAVERSAL"

  Scenario: The caller with both roots reads root b
    When "admin" stats the absolute path of "secret.txt" in root "b"
    Then the call succeeds

  Scenario: ListRoots shows the caller's own roots
    When "ro" lists its roots
    Then the roots are "a (read-only)"

  Scenario: ListTools offers only what the caller may call
    When "reader" lists the tools
    Then every tool only reads, and they include "skill/file-read, skill/file-stat, skill/file-list"
    When "admin" lists the tools
    Then the tools include "skill/file-read, skill/file-write, skill/file-edit, skill/file-delete"

  Scenario: A token removed from the tokens file is refused without a restart
    When the token of "reader" is removed from the tokens file
    Then "reader" is refused without a restart
    And "admin" can still list its roots
