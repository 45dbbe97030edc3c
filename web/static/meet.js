// Every page: challenges and "Play now" (challenges.js), and at a table the chat panel (chat.js).
import { start as startChallenges } from "/web/static/challenges.js";
import { start as startChat } from "/web/static/chat.js";

startChallenges();
startChat();
