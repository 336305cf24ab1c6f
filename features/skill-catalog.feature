@skills @skill_catalog
Feature: Skill catalog service
  As a developer of an agent backend
  I want the skill catalog to stream resources, explain failures, page and follow changes
  So that agents can rely on it while skill authors edit their folders

  # Behaviour of SkillCatalog beyond seed 001, against a live server over gRPC.

  Scenario: A resource file streams like ReadFile
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/guided-skill
      description: Skill with a guide.
      ---
      Read the guide.
      """
    And the folder contains a reference file "guide.md" with content "# Guide"
    When I read the agent skill resource "guide.md" from slot "references"
    Then the skill resource stream should start with info and end with a summary
    And the skill resource text should be "# Guide"

  Scenario: A resource read cannot leave its slot folder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/confined-skill
      description: Skill whose SKILL.md is not a resource.
      ---
      Body.
      """
    And the folder contains a reference file "guide.md" with content "# Guide"
    When I read the agent skill resource "../SKILL.md" from slot "references" expecting an error
    Then the skill catalog error should be "PERMISSION_DENIED" with reason "PATH_TRAVERSAL"
    And the agent skill load error should mention "traversal"
    And the agent skill load error should mention "../SKILL.md"

  Scenario: A skill that failed to load is refused by name with its first problem
    Given an agent skills folder with a SKILL.md:
      """
      ---
      name: local/broken
      description: ""
      ---
      Body.
      """
    When the skill catalog serves the agent skills folder
    And I activate the agent skill "local/broken" expecting an error
    Then the skill catalog error should be "FAILED_PRECONDITION" with reason "INVALID_SKILL"
    And the agent skill load error should mention "skill \"local/broken\" failed to load: description is empty"
    And the skill catalog errors should list the SKILL.md with field "description" on line 3

  Scenario: An unknown skill is not found
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/known
      description: The only skill.
      ---
      Body.
      """
    When the skill catalog serves the agent skills folder
    And I activate the agent skill "local/unknown" expecting an error
    Then the skill catalog error should be "NOT_FOUND" with reason "SKILL_NOT_FOUND"
    And the agent skill load error should mention "not found"
    And the agent skill load error should mention "local/unknown"

  Scenario: A public collection loads unchanged under a declared namespace
    Given an agent skills folder with a SKILL.md:
      """
      ---
      name: pdf-filler
      description: Fill PDF forms. Use when: the user sends a form.
      allowed-tools: Read, Write
      ---
      Body.
      """
    When the skill catalog serves the agent skills folder with namespace "anthropic"
    Then the skill catalog should list "anthropic/pdf-filler"

  Scenario: The catalog pages by name
    Given the skills folder holds 5 agent skills
    When the skill catalog serves the agent skills folder
    And I list the skill catalog 2 at a time
    Then I should receive 3 pages listing all 5 skills in name order

  Scenario: A page token the server did not issue is refused
    When I list the skill catalog with page token "not-a-token" expecting an error
    Then the skill catalog error should be "INVALID_ARGUMENT" with reason "INVALID_ARGUMENT"
    And the agent skill load error should mention "page_token"

  Scenario: Watching the catalog sees skills added, changed and removed on disk
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/watched
      description: Present from the start.
      ---
      Body.
      """
    And the skill catalog serves the agent skills folder
    And the skill catalog is being watched
    When a SKILL.md for "local/added" is added to the skills folder
    Then the skill catalog watch should report ADDED for "local/added"
    And the skill catalog should eventually list "local/added"
    When a script "run.sh" is added to the skill folder
    Then the skill catalog watch should report UPDATED for "local/added"
    When the SKILL.md folder of "local/added" is removed
    Then the skill catalog watch should report REMOVED for "local/added"
    And the skill catalog should eventually not list "local/added"
