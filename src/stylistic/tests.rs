//! Stylistic feature tests on hand-written pages with known answers.
